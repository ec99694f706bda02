package io.tcpopt.controller.api;

import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.tcpopt.common.tls.PemMaterial;
import io.tcpopt.common.tls.TlsFiles;
import io.tcpopt.controller.ControllerConfig;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller's gRPC listener (grpc-netty-shaded). TLS 1.3 when configured, asking for (not
 * requiring) a client certificate so that operators may use a token instead; the authentication
 * interceptor decides per call. Service methods run on a bounded executor of their own, because
 * they block on Hazelcast.
 */
public final class GrpcServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(GrpcServer.class);

  private final Server server;
  private final ExecutorService executor;

  private GrpcServer(Server server, ExecutorService executor) {
    this.server = server;
    this.executor = executor;
  }

  /** Binds {@code config.listen()} and serves {@code services}; a bind failure is one clear line. */
  public static GrpcServer start(ControllerConfig config, List<ServerServiceDefinition> services) {
    AtomicInteger n = new AtomicInteger();
    ExecutorService executor =
        Executors.newFixedThreadPool(
            8,
            r -> {
              Thread t = new Thread(r, "tcpopt-grpc-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(config.listen())
            .executor(executor)
            .maxInboundMessageSize(config.maxInboundMessageSize())
            .maxConcurrentCallsPerConnection(config.maxConcurrentCallsPerConnection())
            .permitKeepAliveTime(10, TimeUnit.SECONDS)
            .permitKeepAliveWithoutCalls(true)
            .handshakeTimeout(config.apiTimeouts().handshakeTimeout().toMillis(), TimeUnit.MILLISECONDS)
            .maxConnectionIdle(config.apiTimeouts().maxConnectionIdle().toMillis(), TimeUnit.MILLISECONDS);
    config.tls().ifPresent(tls -> builder.sslContext(sslContext(tls, config.operatorCas())));
    services.forEach(builder::addService);
    Server server = builder.build();
    try {
      server.start();
    } catch (IOException e) {
      executor.shutdownNow();
      throw new IllegalStateException("cannot listen for gRPC on " + config.listen() + ": " + e.getMessage(), e);
    }
    log.info("controller API listening on {} ({})", server.getListenSockets(), config.tls().isPresent() ? "TLS" : "plaintext");
    return new GrpcServer(server, executor);
  }

  /** Client certificates are verified against the node CA(s) and the operator CA(s); the roles are decided per call. */
  static SslContext sslContext(TlsFiles tls, List<X509Certificate> operatorCas) {
    try {
      List<X509Certificate> trusted = new ArrayList<>(PemMaterial.certificates(tls.trustedCertificates()));
      trusted.addAll(operatorCas);
      return GrpcSslContexts.forServer(tls.certificateChain().toFile(), tls.privateKey().toFile())
          .trustManager(trusted.toArray(X509Certificate[]::new))
          .clientAuth(ClientAuth.OPTIONAL)
          .protocols("TLSv1.3")
          .build();
    } catch (SSLException | IllegalArgumentException e) {
      throw new IllegalStateException("cannot load controller TLS material (" + tls.certificateChain() + "): " + e.getMessage(), e);
    }
  }

  /** The bound address (with the real port when configured as 0). */
  public InetSocketAddress address() {
    return (InetSocketAddress) server.getListenSockets().get(0);
  }

  @Override
  public void close() {
    server.shutdown();
    try {
      if (!server.awaitTermination(2, TimeUnit.SECONDS)) {
        server.shutdownNow();
      }
    } catch (InterruptedException e) {
      server.shutdownNow();
      Thread.currentThread().interrupt();
    }
    executor.shutdownNow();
  }
}
