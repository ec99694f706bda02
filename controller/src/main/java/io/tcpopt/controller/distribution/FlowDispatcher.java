package io.tcpopt.controller.distribution;

import io.tcpopt.common.policy.Action;
import io.tcpopt.common.policy.FlowKey;
import io.tcpopt.common.policy.PolicyDocument;
import io.tcpopt.common.policy.Verdict;
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
  private static final Verdict NO_POLICY = Verdict.optimize("no policy applied: optimize", null, null);

  private volatile Consumer<Action> counter = k -> {};

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
  public Verdict decide(InetSocketAddress client, InetSocketAddress originalDestination) {
    return decide(0, client, originalDestination);
  }

  /** The active policy's document, or null without one. */
  public PolicyDocument document() {
    ActivePolicy active = policy.get();
    return active == null ? null : active.document();
  }

  /** Reports every verdict's action to {@code counter} (metrics). */
  public void countWith(Consumer<Action> counter) {
    this.counter = counter;
  }

  public Verdict decide(int vpn, InetSocketAddress client, InetSocketAddress originalDestination) {
    Verdict v = classify(vpn, client, originalDestination);
    counter.accept(v.action());
    return v;
  }

  private Verdict classify(int vpn, InetSocketAddress client, InetSocketAddress originalDestination) {
    ActivePolicy active = policy.get();
    if (active == null) {
      return NO_POLICY;
    }
    FlowKey key = key(vpn, client, originalDestination);
    Verdict d = active.compiled().classify(key);
    long version = active.versionNumber();
    String by = d.sequence() == 0 ? "default-action" : "seq " + d.sequence();
    if (d.action() != Action.OPTIMIZE) {
      return d.settled(d.action(), by + ": " + d.action().yamlName(), null, version);
    }
    String group = d.serviceNodeGroup();
    String site = active.groupSites().getOrDefault(group, "");
    Placement p = distributor.place(key, group, groupMembers.apply(group, site));
    if (p.passThrough()) {
      return d.settled(Action.PASS_THROUGH, by + ": optimize, but " + p.reason(), null, version);
    }
    return d.settled(Action.OPTIMIZE, by + ": optimize via " + group, p.node(), version);
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
    Verdict d = active.compiled().classify(key(0, client, originalDestination));
    return d.action() == Action.OPTIMIZE ? d.profiles() : null;
  }

  private static FlowKey key(int vpn, InetSocketAddress client, InetSocketAddress destination) {
    return new FlowKey(vpn, client.getAddress(), client.getPort(), destination.getAddress(), destination.getPort());
  }
}
