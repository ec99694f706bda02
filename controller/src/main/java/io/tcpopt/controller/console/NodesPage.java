package io.tcpopt.controller.console;

import io.tcpopt.proto.v1.Health;
import io.tcpopt.proto.v1.NodeInfo;
import java.time.Duration;
import java.util.List;

/**
 * Every registered node: role, site and group, addresses, health with its reason and drain state
 * ({@code tcpopt drain}), load and flow capacity, the policy version it enforces and when it last
 * heartbeat; a warning above the table while any node drains.
 */
final class NodesPage {
  private NodesPage() {}

  static Html render(ControllerData data, long nowMillis) {
    List<NodeInfo> nodes = data.nodes();
    Html h = new Html();
    h.tableStart("Registered nodes: " + nodes.size(), "Node", "Site", "Role", "Group", "Address", "Health", "Load",
        "Flows (active / capacity)", "Policy version", "Last heartbeat");
    for (NodeInfo n : nodes) {
      String health = OverviewPage.health(n.getHealth()) + (n.getHealthReason().isEmpty() ? "" : " (" + n.getHealthReason() + ")")
          + (n.getDraining() ? ", draining" : "");
      boolean serves = n.getFlowCapacity() > 0;
      h.row(n.getName(), n.getSite(), n.getRole(), n.getGroup().isEmpty() ? (serves ? "any of its site" : "-") : n.getGroup(),
          n.getAddress() + (n.getHandoffAddress().isEmpty() ? "" : " (handoff " + n.getHandoffAddress() + ")"),
          health, serves ? String.format("%.1f%%", n.getLoadPercent()) : "-",
          serves ? n.getActiveFlows() + " / " + n.getFlowCapacity() : "-",
          n.getPolicyVersion() > 0 ? "v" + n.getPolicyVersion() : "-",
          n.getLastHeartbeatUnixMillis() == 0 ? "-" : ago(nowMillis - n.getLastHeartbeatUnixMillis()));
    }
    h.tableEnd(10, "no nodes registered", nodes.isEmpty());
    long down = nodes.stream().filter(n -> n.getHealth() != Health.RUNNING).count();
    if (down > 0) {
      h.raw("<p class=\"warning\" role=\"status\">").text(down + " node(s) without a recent heartbeat get no new flows.").raw("</p>");
    }
    long draining = nodes.stream().filter(NodeInfo::getDraining).count();
    if (draining > 0) {
      h.raw("<p class=\"warning\" role=\"status\">").text(draining + " node(s) draining (tcpopt drain): new flows pass through them; "
          + "tcpopt undrain NODE or a restart ends it.").raw("</p>");
    }
    return h;
  }

  static String ago(long millis) {
    Duration d = Duration.ofMillis(Math.max(0, millis));
    return d.toSeconds() < 1 ? "just now" : d.toSeconds() + " s ago";
  }
}
