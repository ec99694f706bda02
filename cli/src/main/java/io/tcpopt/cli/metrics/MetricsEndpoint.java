package io.tcpopt.cli.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tcpopt.cli.CliException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Prometheus scrape endpoint: {@code GET /metrics} returns the registry in the text exposition
 * format; {@code GET /} says where to look. Runs on one daemon thread of its own, never on an event
 * loop. Closing stops the server and the GC binder; the registry stays usable.
 */
public final class MetricsEndpoint implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(MetricsEndpoint.class);

  private final PrometheusMeterRegistry registry;
  private final JvmGcMetrics gcMetrics;
  private final HttpServer server;
  private final ExecutorService executor;

  private MetricsEndpoint(PrometheusMeterRegistry registry, JvmGcMetrics gcMetrics, HttpServer server, ExecutorService executor) {
    this.registry = registry;
    this.gcMetrics = gcMetrics;
    this.server = server;
    this.executor = executor;
  }

  /** A registry with the JVM and process binders, ready to hand to the node's roles. */
  public static PrometheusMeterRegistry newRegistry(String nodeName, String site) {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    registry.config().commonTags("node", nodeName, "site", site);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    return registry;
  }

  /** Serves {@code registry} on {@code listen} (port 0 picks a free port). */
  public static MetricsEndpoint start(InetSocketAddress listen, PrometheusMeterRegistry registry) {
    HttpServerTimeouts.install();
    HttpServer server;
    try {
      server = HttpServer.create(listen, 16);
    } catch (IOException e) {
      throw new CliException("metrics.listen: cannot listen on " + listen + ": " + e.getMessage());
    }
    JvmGcMetrics gc = new JvmGcMetrics();
    gc.bindTo(registry);
    ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "tcpopt-metrics");
      t.setDaemon(true);
      return t;
    });
    server.setExecutor(executor);
    server.createContext("/", exchange -> handle(exchange, registry));
    server.start();
    log.info("metrics: serving Prometheus scrapes on http://{}:{}/metrics",
        server.getAddress().getHostString(), server.getAddress().getPort());
    return new MetricsEndpoint(registry, gc, server, executor);
  }

  private static void handle(HttpExchange exchange, PrometheusMeterRegistry registry) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      if (!"GET".equals(exchange.getRequestMethod()) && !"HEAD".equals(exchange.getRequestMethod())) {
        send(exchange, 405, "text/plain; charset=utf-8", "method not allowed\n");
      } else if (path.equals("/metrics")) {
        send(exchange, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape());
      } else if (path.equals("/")) {
        send(exchange, 200, "text/plain; charset=utf-8", "tcpopt node: metrics at /metrics\n");
      } else {
        send(exchange, 404, "text/plain; charset=utf-8", "not found\n");
      }
    }
  }

  private static void send(HttpExchange exchange, int status, String contentType, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", contentType);
    boolean head = "HEAD".equals(exchange.getRequestMethod());
    exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
    if (!head) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  public InetSocketAddress address() {
    return server.getAddress();
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
    gcMetrics.close();
  }
}
