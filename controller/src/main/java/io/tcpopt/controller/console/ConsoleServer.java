package io.tcpopt.controller.console;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import io.grpc.Channel;
import io.tcpopt.common.tls.TlsContexts;
import io.tcpopt.common.tls.TlsFiles;
import io.tcpopt.controller.auth.Authenticator;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator web console of one controller: HTTP (HTTPS when the controller has TLS, asking for
 * an optional client certificate) on {@code controller.console.listen}, a few worker threads of its
 * own, and the once-a-second {@link TrafficHistory} sampler. Pages read and change the cluster only
 * through the controller's own gRPC services ({@link ControllerData}).
 */
public final class ConsoleServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ConsoleServer.class);
  private static final int WORKERS = 4;

  private final HttpServer server;
  private final ExecutorService workers;
  private final ScheduledExecutorService sampler;
  private final boolean tls;

  private ConsoleServer(HttpServer server, ExecutorService workers, ScheduledExecutorService sampler, boolean tls) {
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
    HttpServer server;
    try {
      if (tlsFiles.isPresent()) {
        SSLContext context = TlsContexts.jdkServer(tlsFiles.get(), authority.operatorCas());
        HttpsServer https = HttpsServer.create(config.listen(), 64);
        https.setHttpsConfigurator(new HttpsConfigurator(context) {
          @Override
          public void configure(HttpsParameters params) {
            SSLParameters p = context.getDefaultSSLParameters();
            p.setWantClientAuth(true);
            p.setProtocols(new String[] {"TLSv1.3", "TLSv1.2"});
            params.setSSLParameters(p);
          }
        });
        server = https;
      } else {
        server = HttpServer.create(config.listen(), 64);
      }
    } catch (IOException e) {
      throw new IllegalStateException("controller.console.listen: cannot listen on " + config.listen() + ": " + e.getMessage(), e);
    }
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
    server.createContext("/", new ConsoleRoutes(access, data, history, new Layout(controllerName, site), new Assets(), tlsFiles.isPresent(), clock));
    server.setExecutor(workers);
    server.start();
    ConsoleServer console = new ConsoleServer(server, workers, sampler, tlsFiles.isPresent());
    log.info("console: {} ({})", console.url(), authority.open() ? "open: no operator credentials configured" : "operators only");
    return console;
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  public InetSocketAddress address() {
    return server.getAddress();
  }

  /** {@code http(s)://HOST:PORT/}, with the bound port. */
  public String url() {
    InetSocketAddress a = address();
    String host = a.getAddress().getHostAddress();
    return (tls ? "https://" : "http://") + (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + a.getPort() + "/";
  }

  @Override
  public void close() {
    sampler.shutdownNow();
    server.stop(0);
    workers.shutdownNow();
  }
}
