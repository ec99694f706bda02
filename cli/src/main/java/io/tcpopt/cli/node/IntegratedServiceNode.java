package io.tcpopt.cli.node;

import io.micrometer.core.instrument.MeterRegistry;
import io.tcpopt.common.net.HostPort;
import io.tcpopt.controller.LocalServiceNode;
import io.tcpopt.controller.distribution.FlowDispatcher;
import io.tcpopt.proto.v1.Flow;
import io.tcpopt.proto.v1.FlowState;
import io.tcpopt.proto.v1.PeerSession;
import io.tcpopt.servicenode.PeerSessionStatus;
import io.tcpopt.servicenode.reduction.PeerReductionFigures;
import io.tcpopt.servicenode.ServiceNode;
import io.tcpopt.servicenode.flow.FlowKind;
import io.tcpopt.servicenode.flow.FlowRecord;
import io.tcpopt.servicenode.flow.HttpReuseFigures;
import io.tcpopt.servicenode.flow.TlsFigures;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The data plane's {@link ServiceNode} as the controller in the same JVM sees it (integrated mode):
 * identity and capacity for registration, flows and sessions for {@code status}/{@code flows}, and
 * the controller's dispatcher installed as the node's flow decider.
 */
final class IntegratedServiceNode implements LocalServiceNode {
  private final ServiceNode node;
  private final MeterRegistry registry;

  IntegratedServiceNode(ServiceNode node, MeterRegistry registry) {
    this.node = node;
    this.registry = registry;
  }

  @Override
  public String name() {
    return node.config().nodeName();
  }

  @Override
  public String site() {
    return node.config().site();
  }

  @Override
  public String wanAddress() {
    return HostPort.format(node.wanAddress());
  }

  @Override
  public long flowCapacity() {
    return node.config().flows().maxActive();
  }

  @Override
  public long activeFlows() {
    return node.flows().active().size();
  }

  @Override
  public boolean draining() {
    return node.draining();
  }

  @Override
  public void drain(boolean on) {
    node.drain(on);
  }

  @Override
  public List<Flow> flows(boolean closed) {
    List<FlowRecord> records = closed ? node.flows().closed() : node.flows().active();
    List<Flow> out = new ArrayList<>(records.size());
    Instant now = Instant.now();
    for (FlowRecord r : records) {
      out.add(toProto(r, name(), site(), now));
    }
    return out;
  }

  static Flow toProto(FlowRecord r, String nodeName, String site, Instant now) {
    Instant end = r.end() != null ? r.end() : now;
    Duration duration = r.start() == null ? Duration.ZERO : Duration.between(r.start(), end);
    long bytes = r.bytesClientToServer() + r.bytesServerToClient();
    long rate = duration.toMillis() > 0 ? bytes * 8_000 / duration.toMillis() : 0;
    Flow.Builder f = Flow.newBuilder()
        .setId(nodeName + "/" + r.id())
        .setSource(HostPort.format(r.client()))
        .setDestination(HostPort.format(r.server()))
        .setServiceNode(nodeName)
        .setSite(site)
        .setState(state(r))
        .setBytesClientToServer(r.bytesClientToServer())
        .setBytesServerToClient(r.bytesServerToClient())
        .setRateBitsPerSecond(rate)
        .setWanRttMicros(Math.max(0, r.wanRttMicros()))
        .setReason(reason(r))
        .setStartedUnixMillis(r.start() == null ? 0 : r.start().toEpochMilli())
        .setDurationMillis(duration.toMillis());
    if (r.kind() == FlowKind.OPTIMIZED) {
      f.addServices("tcp-optimization");
    }
    if (r.tls() != null) {
      TlsFigures t = r.tls();
      f.addServices("ssl");
      f.setTls((t.protocol() == null ? "handshaking" : t.protocol() + " " + t.cipher()) + ", records " + t.smallRecords() + " small / "
          + t.largeRecords() + " full, now " + t.recordSize());
    }
    if (r.httpReuse() != null) {
      HttpReuseFigures h = r.httpReuse();
      f.addServices("http-reuse");
      f.setHttpReuse(h.requests() + " requests, " + h.reusedRequests() + " reused"
          + (h.serverConnection() == null ? "" : ", last on " + h.serverConnection()) + (h.fallback() == null ? "" : ", fallback: " + h.fallback()));
    }
    if (r.peer() != null) {
      f.setPeer(r.peer());
    }
    f.setWanBytes(r.wanBytes()).setReductionPercent(r.reductionPercent());
    if (r.dataReduction() != null) {
      f.addServices("data-reduction");
      f.setDataReduction(r.dataReduction());
    }
    return f.build();
  }

  private static FlowState state(FlowRecord r) {
    switch (r.state()) {
      case CLOSED:
        return FlowState.CLOSED;
      case CONNECTING:
        return FlowState.OPENING;
      default:
        break;
    }
    switch (r.kind()) {
      case OPTIMIZED:
        return FlowState.OPTIMIZED;
      case DROPPED:
      case REFUSED:
        return FlowState.DROPPED;
      default:
        return FlowState.PASS_THROUGH;
    }
  }

  /** For an open flow the pass-through reason; for a closed one how it ended (and how it was handled). */
  private static String reason(FlowRecord r) {
    String handled = r.kind() == FlowKind.OPTIMIZED ? "" : r.kind().name().toLowerCase().replace('_', '-') + ": " + r.reason();
    if (r.closeReason() == null || r.closeReason().isEmpty()) {
      return handled;
    }
    return handled.isEmpty() ? r.closeReason() : r.closeReason() + " (" + handled + ")";
  }

  @Override
  public List<String> problems() {
    return node.failToWireProblem().map(p -> List.of("node " + name() + ": " + p)).orElse(List.of());
  }

  @Override
  public List<PeerSession> sessions() {
    List<PeerSession> out = new ArrayList<>();
    Map<String, PeerReductionFigures> reduction = new HashMap<>();
    for (PeerReductionFigures r : node.reduction().figures()) {
      reduction.put(r.peer(), r);
    }
    for (PeerSessionStatus s : node.sessions()) {
      PeerReductionFigures r = reduction.get(s.name());
      PeerSession.Builder b = PeerSession.newBuilder();
      if (r != null) {
        b.setReductionLanBytes(r.lanBytes()).setReductionWanBytes(r.wanBytes()).setReductionPercent(r.reductionPercent())
            .setCacheHitPercent(r.hitPercent()).setCacheBytes(r.cacheBytes()).setCacheCapacity(r.cacheCapacity());
      }
      out.add(b
          .setPeer(s.name())
          .setSite(s.site())
          .setConnectionsUp(s.connectionsUp())
          .setConnectionsConfigured(s.connectionsConfigured())
          .setExpressUp(s.expressUp())
          .setExpressConfigured(s.expressConfigured())
          .setRttMicros(s.rtt() == null ? 0 : s.rtt().toNanos() / 1000)
          .setCwndSegments(s.cwndSegments())
          .setRetransmits(s.retransmits())
          .setCongestionControl(s.congestionControl())
          .setReporter(name())
          .build());
    }
    return out;
  }

  @Override
  public void decider(FlowDispatcher dispatcher) {
    node.servesFromPolicy(dispatcher.document());
    node.decider(NodeMeters.timed(PolicyDecider.of(dispatcher), registry));
  }
}
