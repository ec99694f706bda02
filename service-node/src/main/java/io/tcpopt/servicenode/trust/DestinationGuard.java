package io.tcpopt.servicenode.trust;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.tcpopt.common.net.HostPort;
import io.tcpopt.common.policy.Cidr;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where the far node may connect a stream a peer opened, whatever its OPEN says: only to a
 * destination inside the prefixes its own site serves, and never to
 * an unspecified, multicast, broadcast, link-local or loopback address or to one of this host's own
 * addresses. Loopback is the one exception an operator can make, by naming a loopback prefix in
 * {@code serves} (a lab whose servers run on the node's host); even then the ports this node
 * listens on stay refused. The client-address source (IP_TRANSPARENT) is checked by {@link
 * #sourceProblem}.
 *
 * <p>The prefixes come from the node's own config ({@code service-node.serves}) when it lists any;
 * otherwise from its site's entry in the controller's active policy ({@code sites: { SITE: {
 * serves: [...] } }}, {@link #fromPolicy}), which only operator credentials can apply. Config
 * takes precedence: a node whose config names prefixes ignores the policy's, so a controller never
 * widens what such a node connects to. Never from a node's own registration or HELLO, nor from
 * another node's record: a node certificate cannot widen a far node's reach.
 *
 * <p>Called on the WAN connections' event loops before any connect; reads only immutable or
 * volatile state. Every refusal increments {@code tcpopt.streams.refused{reason}}, a fixed set of
 * labels ({@link DestinationRefusal}).
 */
public final class DestinationGuard {
  private static final Cidr UNSPECIFIED_V4 = Cidr.parse("0.0.0.0/8");
  private static final Cidr LINK_LOCAL_V4 = Cidr.parse("169.254.0.0/16");
  private static final Cidr LINK_LOCAL_V6 = Cidr.parse("fe80::/10");
  private static final Cidr LOOPBACK_V4 = Cidr.parse("127.0.0.0/8");
  private static final Cidr LOOPBACK_V6 = Cidr.parse("::1/128");

  private final List<Cidr> configured;
  private volatile Served served;
  private final HostAddresses host;
  private volatile Set<Integer> ownPorts = Set.of();
  private final Map<DestinationRefusal, Counter> refused = new EnumMap<>(DestinationRefusal.class);

  /**
   * The prefixes in force and where they come from.
   *
   * @param loopback the prefixes inside loopback: an operator's explicit exception (labs)
   * @param source the setting that named them, for refusal reasons
   */
  private record Served(List<Cidr> prefixes, List<Cidr> loopback, String source) {
    static Served of(List<Cidr> prefixes, String source) {
      return new Served(List.copyOf(prefixes), prefixes.stream().filter(DestinationGuard::isLoopbackPrefix).toList(), source);
    }
  }

  /**
   * What {@link #check} found: allowed when {@code refusal} is null, else why, and one line for the
   * flow table and the peer. Not a flow's verdict (that is {@link io.tcpopt.common.policy.Verdict}):
   * only whether this one destination may be connected.
   */
  public record Check(DestinationRefusal refusal, String reason) {
    static final Check ALLOWED = new Check(null, null);

    public boolean allowed() {
      return refusal == null;
    }
  }

  /**
   * @param serves the destinations this node's site serves by its config (canonical prefixes; empty:
   *     none until a policy names its site's, {@link #fromPolicy})
   * @param host this host's addresses
   */
  public DestinationGuard(List<String> serves, HostAddresses host, MeterRegistry registry) {
    this.configured = serves.stream().map(Cidr::parse).toList();
    this.served = Served.of(configured, CONFIG_SOURCE);
    this.host = host;
    for (DestinationRefusal r : DestinationRefusal.values()) {
      refused.put(r, Counter.builder("tcpopt.streams.refused").description("streams from peers refused before any connect, by reason")
          .tag("reason", r.label()).register(registry));
    }
  }

  private static final String CONFIG_SOURCE = "service-node.serves";

  /**
   * The prefixes the active policy gives this node's site ({@code sites.SITE.serves}; empty when it
   * names none). Used only while the node's config lists no prefix; returns whether they are in
   * force.
   */
  public boolean fromPolicy(String site, List<Cidr> prefixes) {
    if (!configured.isEmpty()) {
      return false;
    }
    served = prefixes.isEmpty() ? Served.of(List.of(), CONFIG_SOURCE) : Served.of(prefixes, "the policy's sites." + site + ".serves");
    return !prefixes.isEmpty();
  }

  /** The prefixes in force (the config's, else the policy's for this site). */
  public List<Cidr> served() {
    return served.prefixes();
  }

  /** Adds ports this node listens on (its WAN, interception, handoff, metrics, controller ports). */
  public void ownPorts(Collection<Integer> ports) {
    Set<Integer> next = new HashSet<>(ownPorts);
    next.addAll(ports);
    next.remove(0);
    ownPorts = Set.copyOf(next);
  }

  /** Whether the far node may connect to {@code destination}; a refusal is counted. */
  public Check check(InetSocketAddress destination) {
    InetAddress a = destination.getAddress();
    DestinationRefusal r = classify(a, destination.getPort());
    if (r == null) {
      return Check.ALLOWED;
    }
    refused.get(r).increment();
    return new Check(r, "destination " + HostPort.format(destination) + " refused: " + describe(r));
  }

  private DestinationRefusal classify(InetAddress a, int port) {
    Served now = served;
    if (a == null || a.isAnyLocalAddress() || UNSPECIFIED_V4.contains(a)) {
      return DestinationRefusal.UNSPECIFIED;
    }
    if (a.isMulticastAddress()) {
      return DestinationRefusal.MULTICAST;
    }
    if (isLimitedBroadcast(a) || host.isSubnetBroadcast(a)) {
      return DestinationRefusal.BROADCAST;
    }
    if (LINK_LOCAL_V4.contains(a) || LINK_LOCAL_V6.contains(a)) {
      return DestinationRefusal.LINK_LOCAL;
    }
    if (LOOPBACK_V4.contains(a) || LOOPBACK_V6.contains(a)) {
      if (now.loopback().stream().noneMatch(c -> c.contains(a))) {
        return DestinationRefusal.LOOPBACK;
      }
      if (ownPorts.contains(port)) {
        return DestinationRefusal.OWN_PORT;
      }
    } else if (host.isOwn(a)) {
      return DestinationRefusal.OWN_ADDRESS;
    }
    for (Cidr c : now.prefixes()) {
      if (c.contains(a)) {
        return null;
      }
    }
    return DestinationRefusal.NOT_SERVED;
  }

  /**
   * Why the far node must not connect from {@code source} (the client's address a peer asked it
   * to keep), or null when it may: never from an address of this host or a special address, nor
   * from inside the prefixes this site serves (a branch client is not a host of this site).
   * Not counted: the flow goes on from this node's own address.
   */
  public String sourceProblem(InetAddress source) {
    DestinationRefusal r = classify(source, 0);
    if (r == DestinationRefusal.NOT_SERVED) {
      return null;
    }
    if (r == null) {
      return "client address " + HostPort.address(source) + " lies inside this site's prefixes (" + served.source() + ")";
    }
    return "client address " + HostPort.address(source) + " is " + describe(r);
  }

  private String describe(DestinationRefusal r) {
    return switch (r) {
      case NOT_SERVED -> served.prefixes().isEmpty()
          ? "this node serves no destination (service-node.serves is empty and the policy names no prefix for its site)"
          : "outside the prefixes this site serves (" + served.source() + ")";
      case LOOPBACK -> "loopback";
      case LINK_LOCAL -> "link-local";
      case MULTICAST -> "multicast";
      case BROADCAST -> "broadcast";
      case UNSPECIFIED -> "unspecified (this host)";
      case OWN_ADDRESS -> "an address of this node's host";
      case OWN_PORT -> "a port this node listens on";
    };
  }

  private static boolean isLimitedBroadcast(InetAddress a) {
    return a instanceof Inet4Address && a.getAddress()[0] == (byte) 255 && a.getAddress()[1] == (byte) 255 && a.getAddress()[2] == (byte) 255
        && a.getAddress()[3] == (byte) 255;
  }

  private static boolean isLoopbackPrefix(Cidr c) {
    return (LOOPBACK_V4.contains(c.network()) && c.prefixLength() >= 8) || (LOOPBACK_V6.contains(c.network()) && c.prefixLength() == 128);
  }
}
