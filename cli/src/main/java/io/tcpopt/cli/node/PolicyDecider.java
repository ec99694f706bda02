package io.tcpopt.cli.node;

import io.tcpopt.common.policy.CompiledPolicy;
import io.tcpopt.common.policy.Decision;
import io.tcpopt.common.policy.FlowKey;
import io.tcpopt.common.profile.LegProfiles;
import io.tcpopt.controller.distribution.FlowDispatcher;
import io.tcpopt.controller.distribution.FlowVerdict;
import io.tcpopt.servicenode.FlowDecider;
import io.tcpopt.servicenode.Verdict;
import java.net.InetSocketAddress;

/**
 * The service node's {@link FlowDecider} built from a policy: the node config's bootstrap {@code
 * policy:} (a standalone service node) or the controller's dispatcher (integrated mode). Both only
 * read in-memory state, so they are safe on the event loop that calls them.
 */
final class PolicyDecider {
  private PolicyDecider() {}

  /** Classifies every flow of VPN 0 with {@code policy}; the decision's reason and leg profiles travel along. */
  static FlowDecider of(CompiledPolicy policy) {
    return (client, destination) -> {
      Decision d = policy.classify(key(client, destination));
      switch (d.action()) {
        case OPTIMIZE:
          return new Verdict(Verdict.Kind.OPTIMIZE, d.reason(), d.serviceNodeGroup(), d.profiles(), d.dataReduction());
        case DROP:
          return new Verdict(Verdict.Kind.DROP, d.reason(), null);
        default:
          return new Verdict(Verdict.Kind.PASS_THROUGH, d.reason(), null);
      }
    };
  }

  /**
   * Decides through the controller: its active policy, then placement in the service-node group.
   * The far node's server-leg profile comes from the policy alone (no placement, no counting).
   */
  static FlowDecider of(FlowDispatcher dispatcher) {
    return new FlowDecider() {
      @Override
      public Verdict decide(InetSocketAddress client, InetSocketAddress destination) {
        FlowVerdict v = dispatcher.decide(client, destination);
        switch (v.kind()) {
          case OPTIMIZE:
            return new Verdict(Verdict.Kind.OPTIMIZE, v.reason(), v.serviceNodeGroup(), v.profiles(), v.dataReduction());
          case DROP:
            return new Verdict(Verdict.Kind.DROP, v.reason(), null);
          default:
            return new Verdict(Verdict.Kind.PASS_THROUGH, v.reason(), null);
        }
      }

      @Override
      public LegProfiles profiles(InetSocketAddress client, InetSocketAddress destination) {
        return dispatcher.profiles(client, destination);
      }
    };
  }

  private static FlowKey key(InetSocketAddress client, InetSocketAddress destination) {
    return new FlowKey(0, client.getAddress(), client.getPort(), destination.getAddress(), destination.getPort());
  }
}
