package io.tcpopt.cli.metrics;

import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tcpopt.cli.CliException;
import io.tcpopt.common.http.BoundedHttpServer;
import io.tcpopt.common.http.HttpCall;
import io.tcpopt.common.http.HttpLimits;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Prometheus scrape endpoint: {@code GET /metrics} returns the registry in the text exposition
 * format; {@code GET /} says where to look. Served by a {@link BoundedHttpServer} (its default
 * limits: 256 connections, a request within 10 s, no request body); scrapes run on one daemon
 * thread of their own, never on the event loop. Closing stops the server and the GC binder; the
 * registry stays usable.
 */
public final class MetricsEndpoint implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(MetricsEndpoint.class);
  private static final String TEXT = "text/plain; charset=utf-8";

  private final PrometheusMeterRegistry registry;
  private final JvmGcMetrics gcMetrics;
  private final BoundedHttpServer server;
  private final ExecutorService executor;

  private MetricsEndpoint(PrometheusMeterRegistry registry, JvmGcMetrics gcMetrics, BoundedHttpServer server, ExecutorService executor) {
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
    ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "tcpopt-metrics");
      t.setDaemon(true);
      return t;
    });
    BoundedHttpServer server;
    try {
      server = BoundedHttpServer.start("tcpopt-metrics-http", listen, HttpLimits.DEFAULT.withMaxBodyBytes(0), null,
          call -> handle(call, registry), executor);
    } catch (IllegalStateException e) {
      executor.shutdownNow();
      throw new CliException("metrics.listen: " + e.getMessage());
    }
    JvmGcMetrics gc = new JvmGcMetrics();
    gc.bindTo(registry);
    log.info("metrics: serving Prometheus scrapes on http://{}:{}/metrics",
        server.address().getHostString(), server.address().getPort());
    return new MetricsEndpoint(registry, gc, server, executor);
  }

  private static void handle(HttpCall call, PrometheusMeterRegistry registry) {
    String path = call.path();
    if (!"GET".equals(call.method()) && !"HEAD".equals(call.method())) {
      call.respond(405, TEXT, "method not allowed\n");
    } else if (path.equals("/metrics")) {
      call.respond(200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape());
    } else if (path.equals("/")) {
      call.respond(200, TEXT, "tcpopt node: metrics at /metrics\n");
    } else {
      call.respond(404, TEXT, "not found\n");
    }
  }

  public InetSocketAddress address() {
    return server.address();
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  @Override
  public void close() {
    server.close();
    executor.shutdownNow();
    gcMetrics.close();
  }
}
