package io.tcpopt.controller.console;

import io.tcpopt.common.policy.Action;
import io.tcpopt.common.policy.Cidr;
import io.tcpopt.common.policy.Match;
import io.tcpopt.common.policy.PolicyDocument;
import io.tcpopt.common.policy.PolicyException;
import io.tcpopt.common.policy.PortRange;
import io.tcpopt.common.policy.Sequence;
import io.tcpopt.common.policy.SequenceAction;
import io.tcpopt.common.policy.ServiceNodeGroup;
import io.tcpopt.common.profile.TcpProfileDefinition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A policy document rendered for reading: its sequences in order as sentences ("source in BR10,
 * destination in DC100 → optimize via SNG-APPQOE"), the default action, the prefix lists,
 * service-node groups and TCP profiles it defines, and the YAML itself in a disclosure. Also the
 * line diff between two versions, with its {@code +}/{@code -} marks kept for screen readers.
 */
final class PolicyView {
  private PolicyView() {}

  static void document(Html h, String idPrefix, String yaml) {
    PolicyDocument d;
    try {
      d = PolicyDocument.parse(yaml, "stored policy");
    } catch (PolicyException e) {
      h.raw("<p class=\"warning\">").text("This version cannot be shown as tables (" + e.getMessage() + "); its YAML follows.").raw("</p>");
      yaml(h, yaml, true);
      return;
    }
    h.tableStart("Sequences of data policy " + d.name() + ", first match wins", "Sequence", "Match", "Action");
    for (Sequence s : d.sequences()) {
      h.row(s.seq(), match(s.match(), d.prefixLists()), action(s.action()));
    }
    h.row("default", "any other flow", d.defaultAction().yamlName());
    h.tableEnd(3, "", false);

    h.tableStart("Prefix lists", "Name", "Prefixes");
    d.prefixLists().forEach((name, cidrs) -> h.row(name, cidrs.stream().map(Cidr::toString).collect(Collectors.joining(", "))));
    h.tableEnd(2, "none defined", d.prefixLists().isEmpty());

    h.tableStart("Service-node groups", "Group", "Site");
    for (ServiceNodeGroup g : d.serviceNodeGroups().values()) {
      h.row(g.name(), g.site());
    }
    h.tableEnd(2, "none defined", d.serviceNodeGroups().isEmpty());

    if (!d.tcpProfiles().isEmpty()) {
      h.tableStart("TCP profiles defined by this policy", "Profile", "Parent", "Settings");
      for (Map.Entry<String, TcpProfileDefinition> p : d.tcpProfiles().entrySet()) {
        Map<String, Object> settings = new java.util.LinkedHashMap<>(p.getValue().toYamlMap());
        settings.remove("parent");
        h.row(p.getKey(), p.getValue().parent(), settings.entrySet().stream().map(e -> e.getKey() + ": " + e.getValue())
            .collect(Collectors.joining(", ")));
      }
      h.tableEnd(3, "", false);
    }
    yaml(h, yaml, false);
  }

  static void yaml(Html h, String yaml, boolean open) {
    h.raw("<details").raw(open ? " open" : "").raw("><summary>YAML document</summary><pre class=\"yaml\">").text(yaml).raw("</pre></details>");
  }

  static String match(Match m, Map<String, List<Cidr>> prefixLists) {
    List<String> parts = new ArrayList<>();
    if (!m.vpns().isEmpty()) {
      parts.add("VPN " + m.vpns().stream().map(String::valueOf).collect(Collectors.joining(" or ")));
    }
    if (m.sourcePrefixList() != null) {
      parts.add("source in " + m.sourcePrefixList() + list(prefixLists.get(m.sourcePrefixList())));
    }
    if (m.destinationPrefixList() != null) {
      parts.add("destination in " + m.destinationPrefixList() + list(prefixLists.get(m.destinationPrefixList())));
    }
    if (!m.sourcePorts().isEmpty()) {
      parts.add("source port " + m.sourcePorts().stream().map(PortRange::toString).collect(Collectors.joining(" or ")));
    }
    if (!m.destinationPorts().isEmpty()) {
      parts.add("destination port " + m.destinationPorts().stream().map(PortRange::toString).collect(Collectors.joining(" or ")));
    }
    return parts.isEmpty() ? "any flow" : String.join(", ", parts);
  }

  private static String list(List<Cidr> cidrs) {
    return cidrs == null ? "" : " (" + cidrs.stream().map(Cidr::toString).collect(Collectors.joining(", ")) + ")";
  }

  static String action(SequenceAction a) {
    if (a.action() != Action.OPTIMIZE) {
      return a.action().yamlName();
    }
    return "optimize via " + a.serviceNodeGroup() + " (profiles: client " + a.clientProfile() + ", WAN " + a.wanProfile()
        + ", server " + a.serverProfile() + ")";
  }

  /** A unified diff from the policy service, lines marked as added, removed or unchanged. */
  static void diff(Html h, String caption, String unified) {
    List<String> lines = unified.lines().toList();
    boolean changed = lines.stream().skip(2).anyMatch(l -> l.startsWith("+") || l.startsWith("-"));
    h.raw("<figure class=\"diff\"><figcaption>").text(caption).raw(changed ? "" : ": no differences")
        .raw(" <span class=\"legend\">(lines starting with + are added, with - removed)</span></figcaption><pre>");
    for (String l : lines) {
      String cls = l.startsWith("+++") || l.startsWith("---") ? "meta" : l.startsWith("+") ? "add" : l.startsWith("-") ? "del" : "same";
      h.raw("<span class=\"").raw(cls).raw("\">").text(l.isEmpty() ? " " : l).raw("</span>");
    }
    h.raw("</pre></figure>");
  }
}
