package io.tcpopt.cli.top;

import io.tcpopt.cli.operator.Views;
import io.tcpopt.cli.output.Table;
import io.tcpopt.common.units.Units;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One frame of {@code tcpopt top} as lines of text, cut to the terminal's width and height: a
 * header (controller, state, policy version, time), the flow totals, the peers (per session: RTT,
 * cwnd, retransmits, throughput of the flows riding it) and the busiest flows by rate now.
 */
final class TopView {
  private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss 'UTC'").withZone(ZoneOffset.UTC);

  private TopView() {}

  static List<String> render(Views.ClusterStatus s, List<Views.Flow> flows, Map<String, Double> rates, Instant now, int width,
      int height, String footer) {
    List<String> out = new ArrayList<>();
    String policy = s.policyVersion() > 0 ? "policy " + s.policyName() + " v" + s.policyVersion() : "no policy";
    out.add("tcpopt top - " + s.controller() + "   " + s.state() + "   " + policy + "   " + CLOCK.format(now));
    if (!s.state().equals("RUNNING") && s.reason() != null && !s.reason().isEmpty()) {
      out.add("  " + s.reason());
    }
    long optimized = flows.stream().filter(f -> f.state().equals("OPTIMIZED")).count();
    long passThrough = flows.stream().filter(f -> f.state().equals("PASS_THROUGH")).count();
    double total = rates.values().stream().mapToDouble(Double::doubleValue).sum();
    String used = s.flowCapacity() <= 0 ? "" : String.format(", %.1f%% of capacity", 100.0 * s.activeFlows() / s.flowCapacity());
    out.add("Flows: " + flows.size() + " active (" + optimized + " optimized, " + passThrough + " pass-through) on " + nodes(s) + used
        + "   Throughput: " + Units.bitsPerSecond(total));
    out.add("");

    Table peers = new Table("node", "peer", "site", "conn", "express", "rtt", "cwnd", "retrans", "cc", "throughput");
    for (Views.Session p : s.sessions()) {
      double rate = flows.stream().filter(f -> p.node().equals(f.node()) && p.peer().equals(f.peer()))
          .mapToDouble(f -> rates.getOrDefault(f.id(), 0.0)).sum();
      peers.row(p.node(), p.peer(), p.peerSite(), p.connectionsUp() + "/" + p.connectionsConfigured(), p.express(), Units.micros(p.rttMicros()),
          p.cwndSegments() < 0 ? null : p.cwndSegments(), p.retransmits() < 0 ? null : p.retransmits(), p.congestionControl(),
          Units.bitsPerSecond(rate));
    }
    out.add("PEERS");
    if (peers.isEmpty()) {
      out.add("  no inter-node sessions reported");
    } else {
      out.addAll(peers.lines());
    }
    out.add("");

    out.add("BUSIEST FLOWS");
    List<Views.Flow> busiest = new ArrayList<>(flows);
    busiest.sort(Comparator.comparingDouble((Views.Flow f) -> rates.getOrDefault(f.id(), 0.0)).reversed().thenComparing(Views.Flow::id));
    int room = Math.max(1, height - out.size() - 3);
    Table top = new Table("flow", "source", "destination", "node", "peer", "state", "rate", "client→", "←server", "wan rtt");
    for (Views.Flow f : busiest.subList(0, Math.min(room, busiest.size()))) {
      top.row(f.id(), f.source(), f.destination(), f.node(), f.peer(), f.state().toLowerCase(Locale.ROOT).replace('_', '-'),
          Units.bitsPerSecond(rates.getOrDefault(f.id(), 0.0)), Units.bytes(f.bytesFromClient()), Units.bytes(f.bytesToClient()),
          Units.micros(f.wanRttMicros()));
    }
    if (top.isEmpty()) {
      out.add("  no active flows");
    } else {
      out.addAll(top.lines());
      if (busiest.size() > room) {
        out.add("  ... and " + (busiest.size() - room) + " more");
      }
    }
    List<String> frame = new ArrayList<>();
    for (String line : out.subList(0, Math.min(out.size(), Math.max(1, height - 2)))) {
      frame.add(line.length() > width ? line.substring(0, width) : line);
    }
    frame.add("");
    frame.add(footer.length() > width ? footer.substring(0, width) : footer);
    return frame;
  }

  private static String nodes(Views.ClusterStatus s) {
    List<String> names = new ArrayList<>();
    for (Views.NodeFlows n : s.flowCounts()) {
      names.add(n.node());
    }
    return names.isEmpty() ? "no node" : String.join(", ", names);
  }
}
