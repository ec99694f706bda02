package io.tcpopt.cli.node;

import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.TlsChannelCredentials;
import io.micrometer.core.instrument.MeterRegistry;
import io.tcpopt.cli.CliException;
import io.tcpopt.common.net.HostPort;
import io.tcpopt.common.policy.CompiledPolicy;
import io.tcpopt.common.policy.PolicyDocument;
import io.tcpopt.common.policy.PolicyException;
import io.tcpopt.controller.agent.NodeAgent;
import io.tcpopt.proto.v1.Flow;
import io.tcpopt.proto.v1.HeartbeatRequest;
import io.tcpopt.proto.v1.NodeRole;
import io.tcpopt.proto.v1.Policy;
import io.tcpopt.proto.v1.RegisterRequest;
import io.tcpopt.servicenode.ServiceNode;
import io.tcpopt.servicenode.ServiceNodeConfig;
import io.tcpopt.servicenode.trust.TrustedPeer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An external service node's link to its site's controllers ({@code node.controller}, one or a
 * list): registers through a controller's node service, heartbeats its load, sessions and recent
 * flows, and follows the policy the controllers push (compiled here and installed as the node's
 * decider). When the controller it talks to fails, it registers with the next one of the list
 * ({@link NodeAgent}). The nodes the controllers have registered are peers the service node accepts
 * sessions from, at their registered sites. The channels authenticate with the node's WAN certificate (mutual TLS)
 * unless the WAN is plaintext. While no controller is reachable the node keeps deciding with the
 * last policy it had.
 */
final class ControllerLink implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ControllerLink.class);
  private static final int MAX_REPORTED_FLOWS = 200;

  private final List<ManagedChannel> channels;
  private final NodeAgent agent;
  private volatile long policyVersion;

  private ControllerLink(List<ManagedChannel> channels, ServiceNode node, MeterRegistry registry) {
    this.channels = channels;
    IntegratedServiceNode view = new IntegratedServiceNode(node, registry);
    RegisterRequest registration = RegisterRequest.newBuilder()
        .setName(view.name())
        .setSite(view.site())
        .setRole(NodeRole.NODE_ROLE_SERVICE_NODE)
        .setWanAddress(view.wanAddress())
        .setHandoffAddress(handoffAddress(node))
        .setFlowCapacity(view.flowCapacity())
        .setVersion(String.valueOf(ControllerLink.class.getPackage().getImplementationVersion()))
        .build();
    this.agent = NodeAgent.start(channels, Optional.empty(), registration,
        () -> heartbeat(view), policy -> install(policy, node, registry),
        peers -> node.registeredPeers(peers.stream().map(p -> new TrustedPeer(p.getName(), p.getSite())).toList()), Duration.ofSeconds(30));
    agent.onDrain(node::drain);
  }

  /**
   * HOST:PORT of the node's handoff listener for the controllers ({@code interception.handoff}),
   * empty without one; a wildcard listen address is announced with the WAN listener's host.
   */
  static String handoffAddress(ServiceNode node) {
    InetSocketAddress h = node.handoffAddress();
    if (h == null) {
      return "";
    }
    java.net.InetAddress host = h.getAddress();
    if (host == null || host.isAnyLocalAddress()) {
      host = node.wanAddress().getAddress();
    }
    return HostPort.format(host == null ? h : new InetSocketAddress(host, h.getPort()));
  }

  static ControllerLink start(List<InetSocketAddress> controllers, ServiceNode node, MeterRegistry registry) {
    ChannelCredentials credentials = credentials(node.config().wan());
    List<ManagedChannel> channels = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (InetSocketAddress controller : controllers) {
      channels.add(Grpc.newChannelBuilderForAddress(controller.getHostString(), controller.getPort(), credentials).build());
      names.add(new HostPort(controller.getHostString(), controller.getPort()).toString());
    }
    log.info("node {}: following controller{} {}", node.config().nodeName(), names.size() > 1 ? "s (in order)" : "", String.join(", ", names));
    return new ControllerLink(List.copyOf(channels), node, registry);
  }

  private static ChannelCredentials credentials(ServiceNodeConfig.Wan wan) {
    if (wan.tls() == null) {
      return InsecureChannelCredentials.create();
    }
    try {
      return TlsChannelCredentials.newBuilder()
          .keyManager(wan.tls().certificateChain().toFile(), wan.tls().privateKey().toFile())
          .trustManager(wan.tls().trustedCertificates().toFile())
          .build();
    } catch (IOException e) {
      throw new CliException("cannot load the WAN TLS files for the controller link: " + e.getMessage(), e);
    }
  }

  private HeartbeatRequest heartbeat(IntegratedServiceNode view) {
    long active = view.activeFlows();
    List<Flow> flows = view.flows(false);
    return HeartbeatRequest.newBuilder()
        .setName(view.name())
        .setActiveFlows(active)
        .setLoadPercent(view.flowCapacity() == 0 ? 0 : active * 100.0 / view.flowCapacity())
        .setPolicyVersion(policyVersion)
        .setDraining(view.draining())
        .addAllSessions(view.sessions())
        .addAllFlows(flows.size() > MAX_REPORTED_FLOWS ? flows.subList(0, MAX_REPORTED_FLOWS) : flows)
        .build();
  }

  private void install(Policy policy, ServiceNode node, MeterRegistry registry) {
    try {
      PolicyDocument document = PolicyDocument.parse(policy.getYaml(), "controller policy");
      CompiledPolicy compiled = CompiledPolicy.compile(document);
      for (String unusable : node.checkSslProfiles(document)) {
        log.warn("node {}: {}; its flows go on without it", node.config().nodeName(), unusable);
      }
      node.servesFromPolicy(document);
      node.decider(NodeMeters.timed(PolicyDecider.of(compiled), registry));
      policyVersion = policy.getInfo().getVersion();
      log.info("node {}: enforcing policy {} v{} from the controller", node.config().nodeName(), policy.getInfo().getName(),
          policyVersion);
    } catch (PolicyException e) {
      log.warn("node {}: refused a pushed policy ({}); keeping the current one", node.config().nodeName(), e.getMessage());
    }
  }

  /** The version of the last policy received from the controller, 0 before the first. */
  long policyVersion() {
    return policyVersion;
  }

  boolean registered() {
    return agent.registered();
  }

  /** HOST:PORT of the controller the node registers with now. */
  String controller() {
    return agent.controller();
  }

  @Override
  public void close() {
    agent.close();
    channels.forEach(ManagedChannel::shutdownNow);
    try {
      for (ManagedChannel channel : channels) {
        channel.awaitTermination(2, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
