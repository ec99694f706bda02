package io.tcpopt.servicenode;

import io.tcpopt.common.policy.Action;
import io.tcpopt.common.policy.Verdict;
import io.tcpopt.common.profile.LegProfiles;
import java.net.InetSocketAddress;

/** Decides what happens to an intercepted flow. Called on an event loop: must not block. */
@FunctionalInterface
public interface FlowDecider {
  Verdict decide(InetSocketAddress client, InetSocketAddress originalDestination);

  /**
   * The TCP profiles the policy gives this flow when it optimizes it, else null. The far node asks
   * this for a stream a peer opened, to pick the server leg's profiles (the OPEN frame carries only
   * an http-reuse profile, which takes precedence over this one's: {@code reuse.PeerReuse}).
   * Must have no side effects (no placement, no counting); the default asks {@link #decide}, which
   * suits deciders that are pure functions of the policy.
   */
  default LegProfiles profiles(InetSocketAddress client, InetSocketAddress originalDestination) {
    Verdict v = decide(client, originalDestination);
    return v != null && v.action() == Action.OPTIMIZE ? v.profiles() : null;
  }

  /** No policy: optimize every flow that a peer serves. */
  static FlowDecider optimizeAll() {
    Verdict all = Verdict.optimize("no policy: optimize all", null, null);
    return (client, destination) -> all;
  }
}
