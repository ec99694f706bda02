package io.tcpopt.controller.console;

import io.grpc.Channel;
import io.tcpopt.common.http.BoundedHttpServer;
import io.tcpopt.common.http.HttpLimits;
import io.tcpopt.common.net.HostPort;
import io.tcpopt.common.tls.TlsContexts;
import io.tcpopt.common.tls.TlsFiles;
import io.tcpopt.controller.auth.Authenticator;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator web console of one controller: HTTP (HTTPS when the controller has TLS, asking for
 * an optional client certificate) on {@code controller.console.listen}, served by a {@link
 * BoundedHttpServer} (256 connections, a request within 10 s, forms up to 1 MiB), a few worker
 * threads of its own for the pages, and the once-a-second {@link TrafficHistory} sampler. Pages read and change the cluster only
 * through the controller's own gRPC services ({@link ControllerData}).
 */
public final class ConsoleServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ConsoleServer.class);
  private static final int WORKERS = 4;

  private final BoundedHttpServer server;
  private final ExecutorService workers;
  private final ScheduledExecutorService sampler;
  private final boolean tls;

  private ConsoleServer(BoundedHttpServer server, ExecutorService workers, ScheduledExecutorService sampler, boolean tls) {
    this.server = server;
    this.workers = workers;
    this.sampler = sampler;
    this.tls = tls;
  }

  /**
   * Starts the console.
   *
   * @param tlsFiles the controller's TLS identity: HTTPS with it when present
   * @param authority who is an operator (the gRPC API's authenticator); its operator CAs are trusted for client certificates
   * @param api a channel to the controller's services that skips their authentication (the console authenticates)
   */
  public static ConsoleServer start(
      ConsoleConfig config, String controllerName, String site, Optional<TlsFiles> tlsFiles, Authenticator authority,
      Channel api, Clock clock) {
    AtomicInteger n = new AtomicInteger();
    ExecutorService workers = Executors.newFixedThreadPool(WORKERS, r -> daemon(r, "tcpopt-console-" + n.incrementAndGet()));
    ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "tcpopt-console-sampler"));
    ControllerData data = new ControllerData(api);
    TrafficHistory history = TrafficHistory.of(data);
    sampler.scheduleAtFixedRate(() -> {
      try {
        history.sample(clock.millis());
      } catch (RuntimeException e) {
        log.debug("console: throughput sample failed: {}", e.toString());
      }
    }, 0, 1, TimeUnit.SECONDS);
    ConsoleAccess access = new ConsoleAccess(authority, new ConsoleSessions(clock));
    ConsoleRoutes routes = new ConsoleRoutes(access, data, history, new Layout(controllerName, site), new Assets(), tlsFiles.isPresent(), clock);
    Supplier<SSLEngine> tls = tlsFiles.map(files -> engines(TlsContexts.jdkServer(files, authority.operatorCas()))).orElse(null);
    BoundedHttpServer server;
    try {
      server = BoundedHttpServer.start("tcpopt-console-http", config.listen(), HttpLimits.DEFAULT.withMaxBodyBytes(Exchanges.MAX_FORM_BYTES),
          tls, routes, workers);
    } catch (IllegalStateException e) {
      sampler.shutdownNow();
      workers.shutdownNow();
      throw new IllegalStateException("controller.console.listen: " + e.getMessage(), e);
    }
    ConsoleServer console = new ConsoleServer(server, workers, sampler, tlsFiles.isPresent());
    log.info("console: {} ({})", console.url(), authority.open() ? "open: no operator credentials configured" : "operators only");
    return console;
  }

  /** Server-mode TLS engines that ask for (and do not require) a client certificate: an operator's, checked per request. */
  private static Supplier<SSLEngine> engines(SSLContext context) {
    return () -> {
      SSLParameters p = context.getDefaultSSLParameters();
      p.setWantClientAuth(true);
      p.setProtocols(new String[] {"TLSv1.3", "TLSv1.2"});
      SSLEngine engine = context.createSSLEngine();
      engine.setUseClientMode(false);
      engine.setSSLParameters(p);
      return engine;
    };
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  public InetSocketAddress address() {
    return server.address();
  }

  /** {@code http(s)://HOST:PORT/}, with the bound port. */
  public String url() {
    return (tls ? "https://" : "http://") + HostPort.format(address()) + "/";
  }

  @Override
  public void close() {
    sampler.shutdownNow();
    server.close();
    workers.shutdownNow();
  }
}
