package io.tcpopt.cli.node;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.tcpopt.common.policy.Verdict;
import io.tcpopt.common.profile.LegProfiles;
import io.tcpopt.servicenode.FlowDecider;
import io.tcpopt.servicenode.PeerSessionStatus;
import io.tcpopt.servicenode.reduction.PeerReductionFigures;
import io.tcpopt.servicenode.ServiceNode;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Meters the launcher adds around a service node: how long deciding a flow takes ({@code
 * tcpopt.flow.classification}), and per peer session the WAN figures from TCP_INFO ({@code
 * tcpopt.session.rtt} in seconds, {@code tcpopt.session.cwnd} in segments, {@code
 * tcpopt.session.retransmits}), refreshed every few seconds on a thread of their own because peers
 * come and go (a DC learns its branches from their HELLO).
 */
final class NodeMeters implements AutoCloseable {
  private static final long REFRESH_SECONDS = 5;

  private final ScheduledExecutorService refresher;

  private NodeMeters(ScheduledExecutorService refresher) {
    this.refresher = refresher;
  }

  /** Times every decision of {@code decider}. */
  static FlowDecider timed(FlowDecider decider, MeterRegistry registry) {
    Timer timer = Timer.builder("tcpopt.flow.classification")
        .description("time to decide a new flow (policy, placement)")
        .register(registry);
    return new FlowDecider() {
      @Override
      public Verdict decide(InetSocketAddress client, InetSocketAddress destination) {
        long start = System.nanoTime();
        try {
          return decider.decide(client, destination);
        } finally {
          timer.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
        }
      }

      @Override
      public LegProfiles profiles(InetSocketAddress client, InetSocketAddress destination) {
        return decider.profiles(client, destination);
      }
    };
  }

  static NodeMeters sessions(ServiceNode node, MeterRegistry registry) {
    MultiGauge rtt = MultiGauge.builder("tcpopt.session.rtt").baseUnit("seconds")
        .description("smallest keepalive round trip over the connections to a peer").register(registry);
    MultiGauge cwnd = MultiGauge.builder("tcpopt.session.cwnd").baseUnit("segments")
        .description("congestion window summed over the connections to a peer (TCP_INFO)").register(registry);
    MultiGauge retransmits = MultiGauge.builder("tcpopt.session.retransmits")
        .description("retransmitted segments summed over the connections to a peer (TCP_INFO)").register(registry);
    // Data reduction per peer (issue 11), labels peer only; the chunk cache is the node's.
    MultiGauge reductionLan = MultiGauge.builder("tcpopt.reduction.lan").baseUnit("bytes")
        .description("bytes the data-reduced streams with a peer moved on their LAN legs, both directions").register(registry);
    MultiGauge reductionWan = MultiGauge.builder("tcpopt.reduction.wan").baseUnit("bytes")
        .description("bytes those streams' segments took on the WAN, both directions").register(registry);
    MultiGauge reductionRatio = MultiGauge.builder("tcpopt.reduction.ratio")
        .description("share of the reduced streams' LAN bytes that did not cross the WAN").register(registry);
    MultiGauge hitRatio = MultiGauge.builder("tcpopt.reduction.cache.hit.ratio")
        .description("share of the chunks sent to a peer that went as references").register(registry);
    io.micrometer.core.instrument.Gauge.builder("tcpopt.reduction.cache", node, n -> {
      var c = n.reduction().engine().store().stats();
      return c.memoryBytes() + c.diskBytes();
    }).baseUnit("bytes").description("bytes the node's chunk cache holds (memory and disk)").register(registry);
    ScheduledExecutorService refresher = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "tcpopt-" + node.config().nodeName() + "-meters");
      t.setDaemon(true);
      return t;
    });
    PeerGauge rttRows = new PeerGauge(rtt);
    PeerGauge cwndRows = new PeerGauge(cwnd);
    PeerGauge retransmitRows = new PeerGauge(retransmits);
    PeerGauge lanRows = new PeerGauge(reductionLan);
    PeerGauge wanRows = new PeerGauge(reductionWan);
    PeerGauge ratioRows = new PeerGauge(reductionRatio);
    PeerGauge hitRows = new PeerGauge(hitRatio);
    Runnable refresh = () -> {
      Map<Tags, Double> rttNow = new HashMap<>();
      Map<Tags, Double> cwndNow = new HashMap<>();
      Map<Tags, Double> retransmitsNow = new HashMap<>();
      for (PeerSessionStatus s : node.sessions()) {
        Tags tags = Tags.of("peer", s.name(), "peer_site", s.site());
        if (s.rtt() != null) {
          rttNow.put(tags, s.rtt().toNanos() / 1e9);
        }
        if (s.cwndSegments() >= 0) {
          cwndNow.put(tags, (double) s.cwndSegments());
        }
        if (s.retransmits() >= 0) {
          retransmitsNow.put(tags, (double) s.retransmits());
        }
      }
      Map<Tags, Double> lanNow = new HashMap<>();
      Map<Tags, Double> wanNow = new HashMap<>();
      Map<Tags, Double> ratioNow = new HashMap<>();
      Map<Tags, Double> hitNow = new HashMap<>();
      for (PeerReductionFigures f : node.reduction().figures()) {
        Tags tags = Tags.of("peer", f.peer());
        lanNow.put(tags, (double) f.lanBytes());
        wanNow.put(tags, (double) f.wanBytes());
        ratioNow.put(tags, f.reductionPercent() / 100);
        hitNow.put(tags, f.hitPercent() / 100);
      }
      rttRows.update(rttNow);
      cwndRows.update(cwndNow);
      retransmitRows.update(retransmitsNow);
      lanRows.update(lanNow);
      wanRows.update(wanNow);
      ratioRows.update(ratioNow);
      hitRows.update(hitNow);
    };
    refresher.scheduleWithFixedDelay(() -> {
      try {
        refresh.run();
      } catch (RuntimeException e) {
        // A node closing under us: the next run (if any) tries again.
      }
    }, 0, REFRESH_SECONDS, TimeUnit.SECONDS);
    return new NodeMeters(refresher);
  }

  @Override
  public void close() {
    refresher.shutdownNow();
  }
}
