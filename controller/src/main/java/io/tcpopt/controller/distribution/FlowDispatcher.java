package io.tcpopt.controller.distribution;

import io.tcpopt.common.policy.Action;
import io.tcpopt.common.policy.Decision;
import io.tcpopt.common.policy.FlowKey;
import io.tcpopt.common.profile.LegProfiles;
import io.tcpopt.controller.policy.ActivePolicy;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Decides a new flow: the active policy classifies it (first matching sequence, else the default
 * action), then an {@code optimize} decision is placed on a member of its service-node group by
 * the {@link FlowDistributor}. Without any policy every flow is optimized (the service node then
 * optimizes whatever a peer serves). Reads only local snapshots: safe on an event loop.
 */
public final class FlowDispatcher {
  private final Supplier<ActivePolicy> policy;
  private final BiFunction<String, String, List<Candidate>> groupMembers;
  private final FlowDistributor distributor;
  private volatile Consumer<FlowVerdict.Kind> counter = k -> {};

  /**
   * @param policy the locally compiled active policy, or null when none
   * @param groupMembers healthy members of (group, group's site)
   */
  public FlowDispatcher(
      Supplier<ActivePolicy> policy, BiFunction<String, String, List<Candidate>> groupMembers,
      FlowDistributor distributor) {
    this.policy = policy;
    this.groupMembers = groupMembers;
    this.distributor = distributor;
  }

  /** Decides a flow of VPN 0. */
  public FlowVerdict decide(InetSocketAddress client, InetSocketAddress originalDestination) {
    return decide(0, client, originalDestination);
  }

  /** Reports every verdict's kind to {@code counter} (metrics). */
  public void countWith(Consumer<FlowVerdict.Kind> counter) {
    this.counter = counter;
  }

  public FlowVerdict decide(int vpn, InetSocketAddress client, InetSocketAddress originalDestination) {
    FlowVerdict v = classify(vpn, client, originalDestination);
    counter.accept(v.kind());
    return v;
  }

  private FlowVerdict classify(int vpn, InetSocketAddress client, InetSocketAddress originalDestination) {
    ActivePolicy active = policy.get();
    if (active == null) {
      return new FlowVerdict(FlowVerdict.Kind.OPTIMIZE, "no policy applied: optimize", null, null, null, 0, 0);
    }
    FlowKey key = key(vpn, client, originalDestination);
    Decision d = active.compiled().classify(key);
    long version = active.versionNumber();
    String by = d.sequence() == 0 ? "default-action" : "seq " + d.sequence();
    switch (d.action()) {
      case DROP:
        return new FlowVerdict(FlowVerdict.Kind.DROP, by + ": drop", null, null, d.profiles(), d.sequence(), version);
      case PASS_THROUGH:
        return new FlowVerdict(
            FlowVerdict.Kind.PASS_THROUGH, by + ": pass-through", null, null, d.profiles(), d.sequence(), version);
      default:
        break;
    }
    String group = d.serviceNodeGroup();
    String site = active.groupSites().getOrDefault(group, "");
    Placement p = distributor.place(key, group, groupMembers.apply(group, site));
    if (p.passThrough()) {
      return new FlowVerdict(
          FlowVerdict.Kind.PASS_THROUGH, by + ": optimize, but " + p.reason(), group, null, d.profiles(), d.sequence(),
          version);
    }
    return new FlowVerdict(
        FlowVerdict.Kind.OPTIMIZE, by + ": optimize via " + group, group, p.node(), d.profiles(), d.sequence(), version,
        d.dataReduction());
  }

  /** Forgets a closed flow's pinned node. */
  public void flowClosed(int vpn, InetSocketAddress client, InetSocketAddress originalDestination) {
    distributor.release(key(vpn, client, originalDestination));
  }

  /**
   * The per-leg TCP profiles the active policy gives an optimized flow of VPN 0, or null: policy
   * only, without placement or counting (the far node's server leg asks this).
   */
  public LegProfiles profiles(InetSocketAddress client, InetSocketAddress originalDestination) {
    ActivePolicy active = policy.get();
    if (active == null) {
      return null;
    }
    Decision d = active.compiled().classify(key(0, client, originalDestination));
    return d.action() == Action.OPTIMIZE ? d.profiles() : null;
  }

  private static FlowKey key(int vpn, InetSocketAddress client, InetSocketAddress destination) {
    return new FlowKey(vpn, client.getAddress(), client.getPort(), destination.getAddress(), destination.getPort());
  }
}
