package io.tcpopt.cli.node;

import io.tcpopt.common.policy.CompiledPolicy;
import io.tcpopt.common.policy.FlowKey;
import io.tcpopt.common.policy.Verdict;
import io.tcpopt.common.profile.LegProfiles;
import io.tcpopt.controller.distribution.FlowDispatcher;
import io.tcpopt.servicenode.FlowDecider;
import java.net.InetSocketAddress;

/**
 * The service node's {@link FlowDecider} built from a policy: the node config's bootstrap {@code
 * policy:} (a standalone service node) or the controller's dispatcher (integrated mode). Both only
 * read in-memory state, so they are safe on the event loop that calls them.
 */
final class PolicyDecider {
  private PolicyDecider() {}

  /** Classifies every flow of VPN 0 with {@code policy}; the verdict's reason and leg profiles travel along. */
  static FlowDecider of(CompiledPolicy policy) {
    return (client, destination) -> policy.classify(key(client, destination));
  }

  /**
   * Decides through the controller: its active policy, then placement in the service-node group.
   * The far node's server-leg profile comes from the policy alone (no placement, no counting).
   */
  static FlowDecider of(FlowDispatcher dispatcher) {
    return new FlowDecider() {
      @Override
      public Verdict decide(InetSocketAddress client, InetSocketAddress destination) {
        return dispatcher.decide(client, destination);
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
