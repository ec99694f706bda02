package io.tcpopt.cli.node;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tcpopt.cli.CliException;
import io.tcpopt.cli.metrics.MetricsEndpoint;
import io.tcpopt.common.net.HostPort;
import io.tcpopt.common.net.HostTuning;
import io.tcpopt.common.net.WanSocketSettings;
import io.tcpopt.common.policy.CompiledPolicy;
import io.tcpopt.common.policy.PolicyDocument;
import io.tcpopt.controller.Controller;
import io.tcpopt.controller.ControllerConfig;
import io.tcpopt.servicenode.FlowDecider;
import io.tcpopt.servicenode.ServiceNode;
import io.tcpopt.servicenode.ServiceNodeConfig;
import io.tcpopt.servicenode.trust.TrustedPeer;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running node: the roles of its config wired together around one meter registry. A service node
 * decides flows with the bootstrap {@code policy:} (or optimizes everything a peer serves when there
 * is none); in an integrated node the controller takes over deciding as soon as it has started, and
 * keeps deciding with the last good policy. Closing stops everything in reverse start order and is
 * idempotent; a failure while starting closes what was already started before reporting it.
 */
public final class NodeRuntime implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(NodeRuntime.class);

  private final NodeConfig config;
  private final PrometheusMeterRegistry registry;
  private final Deque<AutoCloseable> started = new ArrayDeque<>();
  private final List<String> parts = new ArrayList<>();
  private MetricsEndpoint metrics;
  private ServiceNode serviceNode;
  private Controller controller;
  private ControllerLink controllerLink;
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
    PolicyDocument bootstrap = config.policy().isMap() && config.policy().keys().isEmpty()
        ? null
        : PolicyDocument.fromTree(config.policy());
    // Every section is validated before anything binds a port or installs a rule.
    ServiceNodeConfig snConfig = config.roles().contains(Role.SERVICE_NODE)
        ? ServiceNodeConfig.from(config.serviceNode(), config.name(), config.site())
        : null;
    ControllerConfig ctlConfig = config.roles().contains(Role.CONTROLLER)
        ? ControllerConfig.from(config.controller(), config.name(), config.site())
        : null;
    IntegratedServiceNode local = null;
    if (snConfig != null) {
      FlowDecider decider = bootstrap == null ? FlowDecider.optimizeAll() : PolicyDecider.of(CompiledPolicy.compile(bootstrap));
      warnAboutHost(snConfig);
      serviceNode = ServiceNode.start(snConfig, NodeMeters.timed(decider, registry), registry);
      started.push(serviceNode);
      serviceNode.servesFromPolicy(bootstrap);
      if (bootstrap != null) {
        List<String> unusable = serviceNode.checkSslProfiles(bootstrap);
        if (!unusable.isEmpty()) {
          throw new CliException("policy: " + unusable.get(0) + (unusable.size() > 1 ? " (and " + (unusable.size() - 1) + " more)" : ""));
        }
      }
      started.push(NodeMeters.sessions(serviceNode, registry));
      local = new IntegratedServiceNode(serviceNode, registry);
      if (!config.controllers().isEmpty()) {
        controllerLink = ControllerLink.start(config.controllers(), serviceNode, registry);
        started.push(controllerLink);
      }
      parts.add("service node: WAN " + local.wanAddress() + listeners(serviceNode));
    }
    if (ctlConfig != null) {
      Controller ctl = new Controller(ctlConfig, bootstrap, registry);
      if (local != null) {
        ctl.attach(local);
      }
      started.push(ctl);
      controller = ctl.start();
      if (serviceNode != null) {
        trustRegisteredPeers(controller, serviceNode);
      }
      InetSocketAddress api = controller.grpcAddress();
      parts.add(0, "controller: gRPC " + HostPort.format(api)
          + controller.consoleUrl().map(url -> ", console " + url).orElse(""));
    }
    if (config.metricsListen() != null) {
      metrics = MetricsEndpoint.start(config.metricsListen(), registry);
      started.push(metrics);
      parts.add("metrics: http://" + HostPort.format(metrics.address()) + "/metrics");
    }
    if (serviceNode != null) {
      serviceNode.alsoListensOn(otherPorts());
    }
  }

  /** The ports of this node's other parts, which its service node never connects a peer's stream to. */
  private List<Integer> otherPorts() {
    List<Integer> ports = new ArrayList<>();
    if (controller != null) {
      ports.add(controller.grpcAddress().getPort());
      ports.add(controller.config().cluster().port());
      controller.handoffAddresses().forEach(a -> ports.add(a.getPort()));
      controller.consoleUrl().map(java.net.URI::create).map(java.net.URI::getPort).filter(p -> p > 0).ifPresent(ports::add);
    }
    if (metrics != null) {
      ports.add(metrics.address().getPort());
    }
    return ports;
  }

  /**
   * The service-flow nodes this node's controller has registered become peers the service node
   * accepts sessions from, at their registered site (with the configured peers).
   */
  private static void trustRegisteredPeers(Controller controller, ServiceNode node) {
    Runnable update = () -> node.registeredPeers(controller.nodes().snapshot().stream()
        .filter(r -> r.role().servesFlows())
        .map(r -> new TrustedPeer(r.name(), r.site()))
        .toList());
    controller.nodes().addListener(update);
    update.run();
  }

  /** One warning per kernel setting that would hold the WAN sessions back (deploy/sysctl.d/). */
  private void warnAboutHost(ServiceNodeConfig sn) {
    ServiceNodeConfig.Link link = sn.wan().link();
    WanSocketSettings settings =
        WanSocketSettings.forLink(link.bandwidthBitsPerSecond(), link.rtt(), link.pacing(), sn.wan().congestionControl());
    for (String warning : HostTuning.check(settings, sn.interception().transparent() != null)) {
      log.warn("node {}: {}", config.name(), warning);
    }
  }

  private static String listeners(ServiceNode node) {
    List<String> out = new ArrayList<>();
    for (InetSocketAddress a : node.listenerAddresses()) {
      out.add(HostPort.format(a));
    }
    String handoff = node.handoffAddress() == null ? "" : ", handoff " + HostPort.format(node.handoffAddress());
    return (out.isEmpty() ? "" : ", listeners " + String.join(" ", out)) + handoff;
  }

  /** The service node, or null when the node has no service-node role. */
  public ServiceNode serviceNode() {
    return serviceNode;
  }

  /** The controller, or null when the node has no controller role. */
  public Controller controller() {
    return controller;
  }

  /** For an external service node with {@code node.controller}: the last policy version received, else 0. */
  public long controllerPolicyVersion() {
    return controllerLink == null ? 0 : controllerLink.policyVersion();
  }

  /** For an external service node: HOST:PORT of the controller it registers with now, else null. */
  public String followedController() {
    return controllerLink == null ? null : controllerLink.controller();
  }

  /** The metrics endpoint, or null when {@code metrics.listen} is not set. */
  public MetricsEndpoint metrics() {
    return metrics;
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
