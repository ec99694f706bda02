package io.tcpopt.controller.console;

import io.tcpopt.common.units.Units;
import io.tcpopt.proto.v1.Flow;
import io.tcpopt.proto.v1.FlowState;
import io.tcpopt.proto.v1.FlowsRequest;
import io.tcpopt.proto.v1.Health;
import io.tcpopt.proto.v1.NodeInfo;
import io.tcpopt.proto.v1.PeerSession;
import io.tcpopt.proto.v1.StatusResponse;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The overview: state and policy at a glance, the sites with their nodes, the inter-node sessions
 * (RTT, cwnd, retransmits), optimized against pass-through flows, and the throughput chart of the
 * last minutes, which {@code console.js} draws from {@code /api/throughput} and keeps updating.
 */
final class OverviewPage {
  private OverviewPage() {}

  static Html render(ControllerData data) {
    StatusResponse s = data.status();
    List<NodeInfo> nodes = data.nodes();
    List<Flow> flows = data.flows(FlowsRequest.newBuilder().setLimit(TrafficHistory.FLOW_LIMIT).build()).getFlowsList();
    long optimized = flows.stream().filter(TrafficHistory::optimized).count();
    long passThrough = flows.stream().filter(f -> f.getState() == FlowState.PASS_THROUGH).count();
    long healthy = nodes.stream().filter(n -> n.getHealth() == Health.RUNNING).count();

    Html h = new Html();
    h.raw("<section aria-labelledby=\"summary\"><h2 id=\"summary\">At a glance</h2><dl class=\"cards\">");
    card(h, "State", health(s.getHealth()), s.getHealth() == Health.RUNNING ? "" : s.getReason(), "state-" + health(s.getHealth()).toLowerCase());
    card(h, "Policy", s.getPolicyVersion() > 0 ? s.getPolicyName() + " v" + s.getPolicyVersion() : "none", "", "");
    card(h, "Sites", String.valueOf(s.getSitesCount()), String.join(", ", s.getSitesList()), "");
    card(h, "Nodes", healthy + " of " + nodes.size() + " healthy", "", healthy < nodes.size() ? "state-degraded" : "");
    card(h, "Optimized flows", String.valueOf(optimized), "active now", "optimized");
    card(h, "Pass-through flows", String.valueOf(passThrough), "active now", "pass-through");
    card(h, "Flow capacity used", s.getFlowCapacity() == 0 ? "-" : String.format("%.1f%%", s.getFlowCapacityUsedPercent()),
        s.getFlowsActive() + " of " + s.getFlowCapacity(), "");
    h.raw("</dl></section>");

    h.raw("<section aria-labelledby=\"throughput\"><h2 id=\"throughput\">Throughput over the last minutes</h2>")
        .raw("<figure class=\"chart\" id=\"throughput-chart\" data-source=\"/api/throughput\">")
        .raw("<svg role=\"img\" aria-labelledby=\"chart-title\" viewBox=\"0 0 800 240\" preserveAspectRatio=\"none\">")
        .raw("<title id=\"chart-title\">Throughput of optimized and pass-through flows, one point per second</title></svg>")
        .raw("<figcaption><span class=\"key optimized\">optimized</span> <span class=\"key pass-through\">pass-through</span> ")
        .raw("<span id=\"chart-now\" aria-live=\"polite\">Now: waiting for the first samples…</span></figcaption>")
        .raw("<noscript><p>The chart needs JavaScript; the figures above and the flows page do not.</p></noscript>")
        .raw("</figure></section>");

    h.raw("<section aria-labelledby=\"sites\"><h2 id=\"sites\">Sites and nodes</h2>");
    Map<String, StringBuilder> bySite = new TreeMap<>();
    for (String site : s.getSitesList()) {
      bySite.put(site, new StringBuilder());
    }
    for (NodeInfo n : nodes) {
      StringBuilder b = bySite.computeIfAbsent(n.getSite(), k -> new StringBuilder());
      b.append(b.length() == 0 ? "" : ", ").append(n.getName()).append(" (").append(n.getRole()).append(", ")
          .append(n.getHealth() == Health.RUNNING ? "healthy" : "down").append(')');
    }
    for (PeerSession p : s.getSessionsList()) {
      StringBuilder b = bySite.computeIfAbsent(p.getSite(), k -> new StringBuilder());
      String peer = p.getPeer() + " (peer";
      if (nodes.stream().noneMatch(n -> n.getName().equals(p.getPeer())) && b.indexOf(peer) < 0) {
        b.append(b.length() == 0 ? "" : ", ").append(peer).append(" of ").append(p.getReporter()).append(", not registered here)");
      }
    }
    h.tableStart("Sites with their nodes", "Site", "Nodes");
    bySite.forEach((site, list) -> h.row(site, list.length() == 0 ? "no registered node" : list.toString()));
    h.tableEnd(2, "no sites", bySite.isEmpty()).raw("</section>");

    h.raw("<section aria-labelledby=\"sessions\"><h2 id=\"sessions\">Inter-node sessions</h2>");
    h.tableStart("Sessions between service nodes, as each node reports them", "Node", "Peer", "Peer site", "Connections", "Express", "RTT",
        "cwnd (segments)", "Retransmits", "Congestion control");
    for (PeerSession p : s.getSessionsList()) {
      String express = p.getExpressUp() > 0 ? "up" : p.getExpressConfigured() ? "down" : "-"; // "down": dialled, not up; "-": none
      h.row(p.getReporter(), p.getPeer(), p.getSite(), p.getConnectionsUp() + "/" + p.getConnectionsConfigured(), express,
          Units.micros(p.getRttMicros()), p.getCwndSegments() < 0 ? "-" : p.getCwndSegments(),
          p.getRetransmits() < 0 ? "-" : p.getRetransmits(), p.getCongestionControl());
    }
    h.tableEnd(9, "no sessions reported", s.getSessionsCount() == 0).raw("</section>");
    return h;
  }

  private static void card(Html h, String term, String value, String detail, String cssClass) {
    h.raw("<div class=\"card").raw(cssClass.isEmpty() ? "" : " " + cssClass).raw("\"><dt>").text(term).raw("</dt><dd>")
        .raw("<span class=\"value\">").text(value).raw("</span>");
    if (!detail.isEmpty()) {
      h.raw("<span class=\"detail\">").text(detail).raw("</span>");
    }
    h.raw("</dd></div>");
  }

  static String health(Health h) {
    return h == Health.HEALTH_UNSPECIFIED || h == Health.UNRECOGNIZED ? "UNKNOWN" : h.name();
  }
}
