package io.tcpopt.cli.operator;

import io.tcpopt.cli.CliContext;
import io.tcpopt.cli.output.Table;
import io.tcpopt.common.units.Units;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;

/**
 * {@code tcpopt status}: the optimizer's operational state (RUNNING / DEGRADED / DOWN and why),
 * the active policy, sites, service-node groups with member health and load, peer sessions and
 * flow capacity used.
 */
@Command(name = "status", description = "Show the operational state of the cluster.")
public final class StatusCommand extends OperatorCommand {
  public StatusCommand(CliContext context) {
    super(context);
  }

  @Override
  int execute(ControllerClient client) {
    Views.ClusterStatus s = client.status();
    if (output.json()) {
      printJson(toJson(s));
      return 0;
    }
    PrintStream out = context.out();
    printSummary(out, s);
    out.println();
    Table groups = new Table("service-node group", "site", "node", "health", "load");
    for (Views.Group g : s.groups()) {
      if (g.members().isEmpty()) {
        groups.row(g.name(), g.site(), null, "no members", null);
      }
      for (Views.Member m : g.members()) {
        groups.row(g.name(), g.site(), m.node(), (m.healthy() ? "healthy" : "unhealthy") + (m.draining() ? ", draining" : ""),
            String.format("%.1f%%", m.loadPercent()));
      }
    }
    groups.print(out);
    out.println();
    Table sessions = new Table("node", "peer", "peer site", "connections", "express", "rtt", "cwnd", "retransmits", "cc");
    for (Views.Session p : s.sessions()) {
      sessions.row(
          p.node(), p.peer(), p.peerSite(), p.connectionsUp() + "/" + p.connectionsConfigured(), p.express(),
          Units.micros(p.rttMicros()), unknownIfNegative(p.cwndSegments()), unknownIfNegative(p.retransmits()),
          p.congestionControl());
    }
    sessions.print(out);
    if (s.sessions().stream().anyMatch(p -> p.reductionLanBytes() > 0 || p.cacheBytes() > 0)) {
      out.println();
      Table reduction = new Table("node", "peer", "lan bytes", "reduction", "cache hits", "cache");
      for (Views.Session p : s.sessions()) {
        reduction.row(p.node(), p.peer(), Units.bytes(p.reductionLanBytes()), String.format(Locale.ROOT, "%.1f%%", p.reductionPercent()),
            String.format(Locale.ROOT, "%.1f%%", p.cacheHitPercent()), Units.bytes(p.cacheBytes()));
      }
      reduction.print(out);
    }
    return 0;
  }

  private static void printSummary(PrintStream out, Views.ClusterStatus s) {
    String[][] lines = {
      {"State:", stateLine(s)},
      {"Controller:", s.controller()},
      {"Policy:", s.policyVersion() > 0 ? s.policyName() + " (version " + s.policyVersion() + ")" : "none"},
      {"Sites:", s.sites().isEmpty() ? "-" : String.join(", ", s.sites())},
      {"Flows:", flowsLine(s)},
    };
    for (String[] line : lines) {
      out.printf("%-12s %s%n", line[0], line[1]);
    }
  }

  /** "3 active of 20000 (0.0% used) on branch-1 (1), branch-2 (2)": the count and the nodes it covers. */
  static String flowsLine(Views.ClusterStatus s) {
    String line = s.activeFlows() + " active of " + s.flowCapacity() + " (" + percent(s.activeFlows(), s.flowCapacity()) + " used)";
    if (s.flowCounts().isEmpty()) {
      return line + ", no service node reports flows to this controller";
    }
    if (s.flowCounts().size() == 1) {
      return line + " on " + s.flowCounts().get(0).node();
    }
    List<String> nodes = new ArrayList<>();
    for (Views.NodeFlows n : s.flowCounts()) {
      nodes.add(n.node() + " (" + n.activeFlows() + ")");
    }
    return line + " on " + String.join(", ", nodes);
  }

  private static Long unknownIfNegative(long n) {
    return n < 0 ? null : n;
  }

  private static String stateLine(Views.ClusterStatus s) {
    boolean noReason = s.reason() == null || s.reason().isEmpty() || s.state().equals("RUNNING");
    return noReason ? s.state() : s.state() + " (" + s.reason() + ")";
  }

  static String percent(long used, long capacity) {
    return capacity <= 0 ? "-" : String.format("%.1f%%", 100.0 * used / capacity);
  }

  static Map<String, Object> toJson(Views.ClusterStatus s) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("state", s.state());
    json.put("reason", s.reason() == null || s.reason().isEmpty() ? null : s.reason());
    json.put("controller", s.controller());
    Map<String, Object> policy = new LinkedHashMap<>();
    policy.put("name", s.policyName());
    policy.put("version", s.policyVersion());
    json.put("policy", policy);
    json.put("sites", s.sites());
    List<Object> groups = new ArrayList<>();
    for (Views.Group g : s.groups()) {
      Map<String, Object> group = new LinkedHashMap<>();
      group.put("name", g.name());
      group.put("site", g.site());
      List<Object> members = new ArrayList<>();
      for (Views.Member m : g.members()) {
        Map<String, Object> member = new LinkedHashMap<>();
        member.put("node", m.node());
        member.put("healthy", m.healthy());
        member.put("loadPercent", m.loadPercent());
        member.put("draining", m.draining());
        members.add(member);
      }
      group.put("members", members);
      groups.add(group);
    }
    json.put("serviceNodeGroups", groups);
    List<Object> sessions = new ArrayList<>();
    for (Views.Session p : s.sessions()) {
      Map<String, Object> session = new LinkedHashMap<>();
      session.put("node", p.node());
      session.put("peer", p.peer());
      session.put("peerSite", p.peerSite());
      session.put("connectionsUp", p.connectionsUp());
      session.put("connectionsConfigured", p.connectionsConfigured());
      session.put("expressUp", p.expressUp());
      session.put("expressConfigured", p.expressConfigured());
      session.put("rttMicros", p.rttMicros());
      session.put("cwndSegments", p.cwndSegments());
      session.put("retransmits", p.retransmits());
      session.put("congestionControl", p.congestionControl());
      session.put("reductionLanBytes", p.reductionLanBytes());
      session.put("reductionPercent", p.reductionPercent());
      session.put("cacheHitPercent", p.cacheHitPercent());
      session.put("cacheBytes", p.cacheBytes());
      sessions.add(session);
    }
    json.put("sessions", sessions);
    Map<String, Object> flows = new LinkedHashMap<>();
    flows.put("active", s.activeFlows());
    flows.put("capacity", s.flowCapacity());
    List<Object> counted = new ArrayList<>();
    for (Views.NodeFlows n : s.flowCounts()) {
      Map<String, Object> node = new LinkedHashMap<>();
      node.put("node", n.node());
      node.put("site", n.site());
      node.put("active", n.activeFlows());
      node.put("capacity", n.flowCapacity());
      counted.add(node);
    }
    flows.put("nodes", counted);
    json.put("flows", flows);
    return json;
  }
}
