package io.tcpopt.cli.node;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tcpopt.cli.CliException;
import io.tcpopt.cli.metrics.MetricsEndpoint;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running node: the roles of its config wired together around one meter registry. Closing stops
 * everything in reverse start order and is idempotent; a failure while starting closes what was
 * already started before reporting it.
 */
public final class NodeRuntime implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(NodeRuntime.class);

  private final NodeConfig config;
  private final PrometheusMeterRegistry registry;
  private final Deque<AutoCloseable> started = new ArrayDeque<>();
  private final List<String> parts = new ArrayList<>();
  private MetricsEndpoint metrics;
  private boolean closed;

  private NodeRuntime(NodeConfig config) {
    this.config = config;
    this.registry = MetricsEndpoint.newRegistry(config.name(), config.site());
  }

  public static NodeRuntime start(NodeConfig config) {
    NodeRuntime node = new NodeRuntime(config);
    try {
      node.startRoles();
      return node;
    } catch (RuntimeException e) {
      node.close();
      throw e;
    }
  }

  private void startRoles() {
    for (Role role : config.roles()) {
      throw new CliException("role " + role.configName() + " is not available in this build");
    }
    if (config.metricsListen() != null) {
      metrics = MetricsEndpoint.start(config.metricsListen(), registry);
      started.push(metrics);
      parts.add("metrics http://" + metrics.address().getHostString() + ":" + metrics.address().getPort() + "/metrics");
    }
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /** One line: the roles and the addresses they listen on. */
  public String describe() {
    return String.join(", ", parts);
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    while (!started.isEmpty()) {
      AutoCloseable part = started.pop();
      try {
        part.close();
      } catch (Exception e) {
        log.warn("node {}: error while stopping {}: {}", config.name(), part, e.toString());
      }
    }
    registry.close();
  }
}
