package io.tcpopt.controller.api;

import io.grpc.stub.StreamObserver;
import io.tcpopt.common.net.HostPort;
import io.tcpopt.controller.LocalServiceNode;
import io.tcpopt.controller.cluster.ClusterMember;
import io.tcpopt.controller.distribution.FlowDistributor;
import io.tcpopt.controller.membership.NodeRecord;
import io.tcpopt.controller.membership.NodeRegistry;
import io.tcpopt.controller.policy.ActivePolicy;
import io.tcpopt.controller.policy.PolicyStore;
import io.tcpopt.proto.v1.Flow;
import io.tcpopt.proto.v1.FlowState;
import io.tcpopt.proto.v1.FlowsRequest;
import io.tcpopt.proto.v1.FlowsResponse;
import io.tcpopt.proto.v1.GroupStatus;
import io.tcpopt.proto.v1.Health;
import io.tcpopt.proto.v1.NodeFlowCount;
import io.tcpopt.proto.v1.NodeInfo;
import io.tcpopt.proto.v1.NodesRequest;
import io.tcpopt.proto.v1.NodesResponse;
import io.tcpopt.proto.v1.PeerSession;
import io.tcpopt.proto.v1.StatusRequest;
import io.tcpopt.proto.v1.StatusResponse;
import io.tcpopt.proto.v1.StatusServiceGrpc;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

/** What {@code ./tcpopt status}, {@code nodes} and {@code flows} show. */
final class StatusGrpcService extends StatusServiceGrpc.StatusServiceImplBase {
  static final int DEFAULT_FLOW_LIMIT = 1000;

  private final String controllerName;
  private final String site;
  private final ClusterMember cluster;
  private final PolicyStore policies;
  private final NodeRegistry nodes;
  private final NodeReports reports;
  private final Supplier<Optional<LocalServiceNode>> localNode;

  StatusGrpcService(
      String controllerName, String site, ClusterMember cluster, PolicyStore policies, NodeRegistry nodes,
      NodeReports reports, Supplier<Optional<LocalServiceNode>> localNode) {
    this.controllerName = controllerName;
    this.site = site;
    this.cluster = cluster;
    this.policies = policies;
    this.nodes = nodes;
    this.reports = reports;
    this.localNode = localNode;
  }

  @Override
  public void status(StatusRequest request, StreamObserver<StatusResponse> out) {
    PolicyGrpcService.respond(out, this::status);
  }

  private StatusResponse status() {
    StatusResponse.Builder b = StatusResponse.newBuilder().setController(controllerName).setSite(site);
    List<String> problems = new ArrayList<>();
    int members = cluster.visibleMembers();
    boolean quorum = cluster.hasWriteQuorum();
    b.setClusterMembers(members).setClusterQuorum(quorum);
    if (!quorum) {
      problems.add("policy writes refused: " + members + " of " + cluster.config().minimumClusterSize() + " needed controllers visible");
    }
    cluster.exposureProblem().ifPresent(problems::add);
    localNode.get().ifPresent(n -> problems.addAll(n.problems()));
    ActivePolicy policy = policies.active();
    if (policy != null) {
      b.setPolicyVersion(policy.versionNumber()).setPolicyName(policy.version().name());
    }
    Set<String> sites = new TreeSet<>();
    for (NodeRecord r : nodes.snapshot()) {
      sites.add(r.site());
    }
    sites.add(site);
    b.addAllSites(sites);

    if (policy != null) {
      for (Map.Entry<String, String> g : policy.groupSites().entrySet()) {
        GroupStatus group = group(g.getKey(), g.getValue());
        b.addGroups(group);
        if (group.getHealthyMembers() == 0) {
          problems.add("group " + g.getKey() + " has no healthy service node (its flows pass through)");
        } else if (group.getHealthyMembers() < group.getMembersCount()) {
          problems.add("group " + g.getKey() + ": " + (group.getMembersCount() - group.getHealthyMembers()) + " member(s) down");
        }
        if (group.getOverloaded()) {
          problems.add("group " + g.getKey() + " at " + Math.round(group.getLoadPercent()) + "% of flow capacity: new flows pass through");
        }
      }
    }
    long capacity = 0;
    long active = 0;
    for (NodeFlowCount c : flowCounts()) {
      b.addFlowCounts(c);
      capacity += c.getFlowCapacity();
      active += c.getActiveFlows();
    }
    for (PeerSession s : sessions()) {
      b.addSessions(s);
      if (s.getConnectionsUp() < s.getConnectionsConfigured()) {
        problems.add("session " + s.getReporter() + "->" + s.getPeer() + ": " + s.getConnectionsUp() + "/" + s.getConnectionsConfigured() + " connections up");
      }
    }
    b.setFlowsActive(active).setFlowCapacity(capacity).setFlowCapacityUsedPercent(capacity == 0 ? 0 : active * 100.0 / capacity);
    if (members == 0) {
      b.setHealth(Health.DOWN).setReason("controller cluster member is not running");
    } else if (problems.isEmpty()) {
      b.setHealth(Health.RUNNING).setReason(policy == null ? "no policy applied: every flow a peer serves is optimized" : "ok");
    } else {
      b.setHealth(Health.DEGRADED).setReason(String.join("; ", problems));
    }
    return b.build();
  }

  private GroupStatus group(String name, String groupSite) {
    GroupStatus.Builder g = GroupStatus.newBuilder().setName(name).setSite(groupSite);
    long capacity = 0;
    long active = 0;
    int healthy = 0;
    // The members this controller hands the group's flows to: nodes of its own site (see Controller).
    for (NodeRecord r : nodes.snapshot()) {
      if (!r.role().servesFlows() || !r.site().equals(site) || !(r.group().isEmpty() || r.group().equals(name))) {
        continue;
      }
      NodeRecord live = live(r);
      boolean ok = nodes.isHealthy(r);
      g.addMembers(nodeInfo(live, ok, nodes.expiry()));
      if (ok) {
        healthy++;
        capacity += live.flowCapacity();
        active += live.activeFlows();
      }
    }
    double load = capacity == 0 ? 0 : active * 100.0 / capacity;
    return g.setHealthyMembers(healthy)
        .setFlowCapacity(capacity)
        .setActiveFlows(active)
        .setLoadPercent(load)
        .setOverloaded(healthy > 0 && load >= FlowDistributor.OVERLOAD_PERCENT)
        .build();
  }

  /**
   * The nodes whose flows {@link #flows} lists, in the same order: the integrated node (its live
   * count) and every node that reported to this controller (as of its last heartbeat).
   */
  private List<NodeFlowCount> flowCounts() {
    List<NodeFlowCount> out = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    localNode.get().ifPresent(n -> {
      seen.add(n.name());
      out.add(NodeFlowCount.newBuilder().setNode(n.name()).setSite(n.site()).setActiveFlows(n.activeFlows())
          .setFlowCapacity(n.flowCapacity()).build());
    });
    for (String node : new TreeSet<>(reports.all().keySet())) {
      if (seen.add(node)) {
        nodes.get(node).ifPresent(r -> out.add(NodeFlowCount.newBuilder().setNode(node).setSite(r.site())
            .setActiveFlows(r.activeFlows()).setFlowCapacity(r.flowCapacity()).build()));
      }
    }
    return out;
  }

  /** {@code r}, with the live flow count and drain state when it is the integrated node of this JVM (the registry lags a heartbeat). */
  private NodeRecord live(NodeRecord r) {
    Optional<LocalServiceNode> local = localNode.get();
    return local.isPresent() && local.get().name().equals(r.name())
        ? r.withActiveFlows(local.get().activeFlows()).withDraining(local.get().draining()) : r;
  }

  private List<PeerSession> sessions() {
    List<PeerSession> all = new ArrayList<>();
    localNode.get().ifPresent(n -> n.sessions().forEach(s -> all.add(s.getReporter().isEmpty() ? s.toBuilder().setReporter(n.name()).build() : s)));
    Set<String> known = new HashSet<>();
    nodes.snapshot().forEach(r -> known.add(r.name()));
    reports.retain(known);
    reports.all().forEach((node, report) -> report.sessions().forEach(s -> all.add(s.toBuilder().setReporter(node).build())));
    return all;
  }

  @Override
  public void nodes(NodesRequest request, StreamObserver<NodesResponse> out) {
    PolicyGrpcService.respond(out, () -> {
      NodesResponse.Builder b = NodesResponse.newBuilder();
      for (NodeRecord r : nodes.snapshot()) {
        if (request.getSite().isEmpty() || request.getSite().equals(r.site())) {
          b.addNodes(nodeInfo(live(r), nodes.isHealthy(r), nodes.expiry()));
        }
      }
      return b.build();
    });
  }

  @Override
  public void flows(FlowsRequest request, StreamObserver<FlowsResponse> out) {
    PolicyGrpcService.respond(out, () -> {
      int limit = request.getLimit() <= 0 ? DEFAULT_FLOW_LIMIT : request.getLimit();
      FlowsResponse.Builder b = FlowsResponse.newBuilder();
      List<Flow> candidates = new ArrayList<>();
      Optional<LocalServiceNode> local = localNode.get();
      Set<String> seenNodes = new HashSet<>();
      if (local.isPresent()) {
        LocalServiceNode n = local.get();
        seenNodes.add(n.name());
        for (Flow f : n.flows(request.getClosed())) {
          candidates.add(withNode(f, n.name(), n.site()));
        }
      }
      reports.all().forEach((node, report) -> {
        if (seenNodes.add(node)) {
          String nodeSite = nodes.get(node).map(NodeRecord::site).orElse("");
          for (Flow f : report.flows()) {
            boolean closed = f.getState() == FlowState.CLOSED;
            if (closed == request.getClosed()) {
              candidates.add(withNode(f, node, nodeSite));
            }
          }
        }
      });
      for (Flow f : candidates) {
        if (matches(f, request)) {
          if (b.getFlowsCount() >= limit) {
            b.setTruncated(true);
            break;
          }
          b.addFlows(f);
        }
      }
      return b.build();
    });
  }

  private static Flow withNode(Flow f, String node, String site) {
    Flow.Builder b = f.toBuilder();
    if (f.getServiceNode().isEmpty()) {
      b.setServiceNode(node);
    }
    if (f.getSite().isEmpty()) {
      b.setSite(site);
    }
    return b.build();
  }

  static boolean matches(Flow f, FlowsRequest r) {
    if (!r.getSite().isEmpty() && !r.getSite().equals(f.getSite())) {
      return false;
    }
    if (!r.getNode().isEmpty() && !r.getNode().equals(f.getServiceNode())) {
      return false;
    }
    if (r.getState() != FlowState.FLOW_STATE_UNSPECIFIED && r.getState() != f.getState()) {
      return false;
    }
    if (!r.getAddress().isEmpty() && !host(f.getSource()).equals(r.getAddress()) && !host(f.getDestination()).equals(r.getAddress())) {
      return false;
    }
    return r.getPort() == 0 || port(f.getSource()) == r.getPort() || port(f.getDestination()) == r.getPort();
  }

  private static String host(String hostPort) {
    return HostPort.lenient(hostPort).host();
  }

  private static int port(String hostPort) {
    return HostPort.lenient(hostPort).port();
  }

  static NodeInfo nodeInfo(NodeRecord r, boolean healthy, Duration expiry) {
    return NodeInfo.newBuilder()
        .setName(r.name())
        .setSite(r.site())
        .setGroup(r.group())
        .setRole(r.role().label())
        .setAddress(r.address())
        .setHandoffAddress(r.handoffAddress())
        .setFlowCapacity(r.flowCapacity())
        .setActiveFlows(r.activeFlows())
        .setLoadPercent(r.loadPercent())
        .setHealth(healthy ? Health.RUNNING : Health.DOWN)
        .setHealthReason(healthy ? "heartbeating" : "no heartbeat for more than " + expiry.toMillis() + "ms")
        .setLastHeartbeatUnixMillis(r.lastHeartbeatMillis())
        .setPolicyVersion(r.policyVersion())
        .setDraining(r.draining())
        .build();
  }
}
