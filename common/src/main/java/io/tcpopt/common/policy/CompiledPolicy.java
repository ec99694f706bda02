package io.tcpopt.common.policy;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A {@link PolicyDocument} compiled for classifying new flows: sequences in ascending order, first
 * match wins, then the default action.
 *
 * <p>How it is fast: each side (source, destination) has an {@link AddressTable} that maps an
 * address, by one binary search, to a bitset of the sequences whose prefix-list condition on that
 * side holds (sequences without one always have their bit set). The AND of both rows leaves the
 * candidate sequences in match order; the first whose VPN and port conditions hold wins. Verdicts
 * are built at compile time and shared, so classifying an IPv4 flow allocates nothing (an IPv6
 * address costs one 16-byte copy from {@link InetAddress#getAddress()}).
 *
 * <p>Thread-safe and immutable: compile once per policy version, share between threads.
 */
public final class CompiledPolicy {
  /** Whether {@link Inet4Address#hashCode()} is the address itself (true on OpenJDK), to avoid a copy. */
  private static final boolean V4_HASH_IS_ADDRESS = probeInet4Hash();

  private final PolicyDocument document;
  private final AddressTable sources;
  private final AddressTable destinations;
  private final int words;
  private final Filter[] filters;
  private final Verdict[] decisions;
  private final Verdict defaultVerdict;

  /** The per-sequence conditions left after the address tables: VPN and ports. */
  private static final class Filter {
    final int[] vpns; // empty = any
    final int[] sourceRanges; // pairs low, high; empty = any
    final int[] destinationRanges;

    Filter(Match m) {
      vpns = m.vpns().stream().mapToInt(Integer::intValue).toArray();
      sourceRanges = ranges(m.sourcePorts());
      destinationRanges = ranges(m.destinationPorts());
    }

    private static int[] ranges(List<PortRange> rs) {
      int[] out = new int[rs.size() * 2];
      for (int i = 0; i < rs.size(); i++) {
        out[2 * i] = rs.get(i).low();
        out[2 * i + 1] = rs.get(i).high();
      }
      return out;
    }

    boolean matches(int vpn, int sourcePort, int destinationPort) {
      return anyOf(vpns, vpn) && inRanges(sourceRanges, sourcePort) && inRanges(destinationRanges, destinationPort);
    }

    private static boolean anyOf(int[] values, int v) {
      if (values.length == 0) {
        return true;
      }
      for (int x : values) {
        if (x == v) {
          return true;
        }
      }
      return false;
    }

    private static boolean inRanges(int[] ranges, int port) {
      if (ranges.length == 0) {
        return true;
      }
      for (int i = 0; i < ranges.length; i += 2) {
        if (port >= ranges[i] && port <= ranges[i + 1]) {
          return true;
        }
      }
      return false;
    }
  }

  private CompiledPolicy(PolicyDocument document) {
    this.document = document;
    List<Sequence> sequences = document.sequences();
    int n = sequences.size();
    Map<String, Integer> listIndex = new HashMap<>();
    List<List<Cidr>> lists = new ArrayList<>();
    document.prefixLists().forEach((name, cidrs) -> {
      listIndex.put(name, lists.size());
      lists.add(cidrs);
    });
    int[] sourceRequired = new int[n];
    int[] destinationRequired = new int[n];
    filters = new Filter[n];
    decisions = new Verdict[n];
    for (int i = 0; i < n; i++) {
      Sequence s = sequences.get(i);
      Match m = s.match();
      sourceRequired[i] = m.sourcePrefixList() == null ? -1 : listIndex.get(m.sourcePrefixList());
      destinationRequired[i] = m.destinationPrefixList() == null ? -1 : listIndex.get(m.destinationPrefixList());
      filters[i] = new Filter(m);
      decisions[i] = decision(document, s);
    }
    words = Math.max(1, (n + 63) >>> 6);
    sources = new AddressTable(lists, sourceRequired);
    destinations = new AddressTable(lists, destinationRequired);
    defaultVerdict =
        new Verdict(
            document.defaultAction(), "default action: " + document.defaultAction().yamlName() + " (no sequence matched)", 0, null, null,
            null, 0);
  }

  public static CompiledPolicy compile(PolicyDocument document) {
    return new CompiledPolicy(document);
  }

  private static Verdict decision(PolicyDocument d, Sequence s) {
    SequenceAction a = s.action();
    String where = "policy " + d.name() + " seq " + s.seq() + ": ";
    if (a.action() == Action.OPTIMIZE) {
      return new Verdict(
          Action.OPTIMIZE, where + "optimize via " + a.serviceNodeGroup(), s.seq(), Objects.requireNonNull(a.serviceNodeGroup()), null,
          Objects.requireNonNull(d.legProfiles(a)), 0, a.dataReduction());
    }
    return new Verdict(a.action(), where + a.action().yamlName(), s.seq(), null, null, null, 0);
  }

  public PolicyDocument document() {
    return document;
  }

  /** The decision for a new flow; never {@code null}. */
  public Verdict classify(FlowKey k) {
    if (words == 1) {
      return firstOf(word(sources, k.source()) & word(destinations, k.destination()), 0, k);
    }
    long[] s = row(sources, k.source());
    long[] d = row(destinations, k.destination());
    for (int w = 0; w < words; w++) {
      Verdict found = firstOf(s[w] & d[w], w, k);
      if (found != defaultVerdict) {
        return found;
      }
    }
    return defaultVerdict;
  }

  /** The first candidate of word {@code w} whose VPN and port conditions hold, else the default. */
  private Verdict firstOf(long candidates, int w, FlowKey k) {
    while (candidates != 0) {
      int i = (w << 6) + Long.numberOfTrailingZeros(candidates);
      if (filters[i].matches(k.vpn(), k.sourcePort(), k.destinationPort())) {
        return decisions[i];
      }
      candidates &= candidates - 1;
    }
    return defaultVerdict;
  }

  private static long word(AddressTable table, InetAddress a) {
    if (a instanceof Inet4Address) {
      return table.lookupV4Word(V4_HASH_IS_ADDRESS ? a.hashCode() : toInt(a.getAddress()));
    }
    if (a instanceof Inet6Address) {
      byte[] b = a.getAddress();
      return table.lookupV6Word(toLong(b, 0), toLong(b, 8));
    }
    throw new IllegalArgumentException("not an IP address: " + a);
  }

  private static long[] row(AddressTable table, InetAddress a) {
    if (a instanceof Inet4Address) {
      return table.lookupV4(V4_HASH_IS_ADDRESS ? a.hashCode() : toInt(a.getAddress()));
    }
    if (a instanceof Inet6Address) {
      byte[] b = a.getAddress();
      return table.lookupV6(toLong(b, 0), toLong(b, 8));
    }
    throw new IllegalArgumentException("not an IP address: " + a);
  }

  private static int toInt(byte[] b) {
    return ((b[0] & 0xff) << 24) | ((b[1] & 0xff) << 16) | ((b[2] & 0xff) << 8) | (b[3] & 0xff);
  }

  private static long toLong(byte[] b, int offset) {
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (b[offset + i] & 0xff);
    }
    return v;
  }

  private static boolean probeInet4Hash() {
    try {
      byte[][] samples = {{(byte) 198, 18, 1, 2}, {(byte) 255, (byte) 255, (byte) 255, (byte) 254}, {1, 0, 0, (byte) 128}};
      for (byte[] b : samples) {
        if (InetAddress.getByAddress(b).hashCode() != toInt(b)) {
          return false;
        }
      }
      return true;
    } catch (UnknownHostException e) {
      return false;
    }
  }
}
