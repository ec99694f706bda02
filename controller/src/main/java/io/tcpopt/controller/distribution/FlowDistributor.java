package io.tcpopt.controller.distribution;

import io.tcpopt.common.policy.FlowKey;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Weighted rendezvous (highest-random-weight) hashing of flows onto the healthy members of a
 * service-node group. Each node scores {@code capacity / -ln(u)} with {@code u} a uniform hash of
 * (flow 5-tuple, node name); the highest score wins. The choice depends only on the flow and the
 * member set, so it is sticky, a node's share is proportional to its capacity, and adding a node
 * only ever moves flows <em>to</em> the new node. On top of that, a bounded LRU table pins the
 * node of each flow placed here, so an existing flow never moves while its node stays healthy.
 *
 * <p>A group at or above {@link #OVERLOAD_PERCENT} of its summed capacity passes new flows through
 * rather than queueing them. Thread-safe; no I/O.
 */
public final class FlowDistributor {
  /** Load (active / capacity over the group's healthy members) at which new flows pass through. */
  public static final double OVERLOAD_PERCENT = 95.0;

  private final Map<FlowKey, String> pinned;

  /** @param maxPinnedFlows bound of the pinning table; the least recently used flows are forgotten first */
  public FlowDistributor(int maxPinnedFlows) {
    this.pinned =
        new LinkedHashMap<>(1024, 0.75f, true) {
          private static final long serialVersionUID = 1L;

          @Override
          protected boolean removeEldestEntry(Map.Entry<FlowKey, String> eldest) {
            return size() > maxPinnedFlows;
          }
        };
  }

  /** Chooses a member of {@code group} for {@code flow}. */
  public Placement place(FlowKey flow, String group, List<Candidate> healthyMembers) {
    if (healthyMembers.isEmpty()) {
      return new Placement(null, "no healthy service node in group " + group);
    }
    long capacity = 0;
    long active = 0;
    for (Candidate c : healthyMembers) {
      capacity += Math.max(0, c.capacity());
      active += Math.max(0, c.activeFlows());
    }
    synchronized (pinned) {
      String existing = pinned.get(flow);
      if (existing != null) {
        for (Candidate c : healthyMembers) {
          if (c.name().equals(existing)) {
            return new Placement(existing, "pinned");
          }
        }
        pinned.remove(flow);
      }
    }
    double load = capacity <= 0 ? 100.0 : active * 100.0 / capacity;
    if (load >= OVERLOAD_PERCENT) {
      return new Placement(
          null,
          String.format(
              "service-node group %s at %.0f%% of its flow capacity (%d/%d flows)", group, load, active, capacity));
    }
    String chosen = rendezvous(flow, healthyMembers);
    if (healthyMembers.size() > 1) { // with one member there is nothing a flow could move to
      synchronized (pinned) {
        pinned.put(flow, chosen);
      }
    }
    return new Placement(chosen, "rendezvous");
  }

  /** Forgets a closed flow's pin. */
  public void release(FlowKey flow) {
    synchronized (pinned) {
      pinned.remove(flow);
    }
  }

  int pinnedFlows() {
    synchronized (pinned) {
      return pinned.size();
    }
  }

  /** The pure hashing choice, without pinning or overload checks. */
  static String rendezvous(FlowKey flow, List<Candidate> members) {
    long flowHash = flowHash(flow);
    String best = null;
    double bestScore = Double.NEGATIVE_INFINITY;
    for (Candidate c : members) {
      if (c.capacity() <= 0) {
        continue;
      }
      long h = mix(flowHash ^ nameHash(c.name()));
      double u = ((h >>> 11) + 0.5) * 0x1.0p-53; // uniform in (0, 1)
      double score = c.capacity() / -Math.log(u);
      if (score > bestScore || (score == bestScore && c.name().compareTo(best) < 0)) {
        bestScore = score;
        best = c.name();
      }
    }
    return best == null ? members.get(0).name() : best;
  }

  static long flowHash(FlowKey k) {
    long h = mix(k.vpn() * 0x9E3779B97F4A7C15L + 1);
    h = mix(h ^ bytesHash(k.source().getAddress()));
    h = mix(h ^ k.sourcePort());
    h = mix(h ^ bytesHash(k.destination().getAddress()));
    return mix(h ^ (k.destinationPort() * 0x20000L));
  }

  private static long nameHash(String name) {
    return mix(bytesHash(name.getBytes(StandardCharsets.UTF_8)) + 0x632BE59BD9B4E019L);
  }

  private static long bytesHash(byte[] bytes) {
    long h = 0xCBF29CE484222325L; // FNV-1a offset, then mixed
    for (byte b : bytes) {
      h = (h ^ (b & 0xff)) * 0x100000001B3L;
    }
    return mix(h);
  }

  /** SplitMix64 finalizer. */
  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
