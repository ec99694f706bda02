package io.tcpopt.common.policy;

import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The conditions of one sequence; all present conditions must hold. An absent condition (empty
 * list or {@code null}) matches anything.
 *
 * @param vpns VPN ids; empty = any VPN
 * @param sourcePrefixList name of the prefix list the source address must be in, or {@code null}
 * @param destinationPrefixList name of the prefix list the destination must be in, or {@code null}
 * @param sourcePorts source port ranges; empty = any port
 * @param destinationPorts destination port ranges; empty = any port
 * @param protocol {@code tcp} or {@code null}; tcpopt sees only TCP, so both match every flow
 */
public record Match(
    List<Integer> vpns,
    String sourcePrefixList,
    String destinationPrefixList,
    List<PortRange> sourcePorts,
    List<PortRange> destinationPorts,
    String protocol) {
  public static final Match ANY = new Match(List.of(), null, null, List.of(), List.of(), null);

  public Match {
    vpns = List.copyOf(vpns);
    sourcePorts = List.copyOf(sourcePorts);
    destinationPorts = List.copyOf(destinationPorts);
  }

  /** The reference semantics (slow): what {@link CompiledPolicy} must agree with. */
  boolean matches(FlowKey k, Map<String, List<Cidr>> prefixLists) {
    return (vpns.isEmpty() || vpns.contains(k.vpn()))
        && inList(k.source(), sourcePrefixList, prefixLists)
        && inList(k.destination(), destinationPrefixList, prefixLists)
        && inPorts(k.sourcePort(), sourcePorts)
        && inPorts(k.destinationPort(), destinationPorts);
  }

  private static boolean inList(InetAddress a, String list, Map<String, List<Cidr>> lists) {
    if (list == null) {
      return true;
    }
    for (Cidr c : Objects.requireNonNull(lists.get(list), list)) {
      if (c.contains(a)) {
        return true;
      }
    }
    return false;
  }

  private static boolean inPorts(int port, List<PortRange> ranges) {
    if (ranges.isEmpty()) {
      return true;
    }
    for (PortRange r : ranges) {
      if (r.contains(port)) {
        return true;
      }
    }
    return false;
  }
}
