package io.tcpopt.controller.handoff;

import io.tcpopt.common.policy.CompiledPolicy;
import io.tcpopt.common.policy.PolicyDocument;
import io.tcpopt.controller.distribution.Candidate;
import io.tcpopt.controller.distribution.FlowDispatcher;
import io.tcpopt.controller.distribution.FlowDistributor;
import io.tcpopt.controller.policy.ActivePolicy;
import io.tcpopt.controller.policy.PolicyVersion;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The handoff tests' dispatch: a data policy giving flows between loopback addresses to one
 * destination port an action, and one external service node, {@code sn-ext}, in the only group,
 * {@code SNG-EXT} at site {@code branch}.
 */
final class LoopbackDispatch {
  private static final String POLICY =
      """
      prefix-lists:
        LOOP: [127.0.0.0/8]
      service-node-groups:
        SNG-EXT: { site: branch }
      data-policy:
        name: handoff
        sequences:
          - seq: 1
            match: { source-prefix-list: LOOP, destination-prefix-list: LOOP, destination-port: %d }
            action: { %s }
        default-action: pass-through
      """;

  /** What the optimize actions of these tests say. */
  static final String OPTIMIZE = "optimize: { service-node-group: SNG-EXT }";

  private LoopbackDispatch() {}

  /** The active policy giving flows to {@code port} on loopback the {@code action}. */
  static ActivePolicy policy(int port, String action) {
    PolicyDocument doc = PolicyDocument.parse(POLICY.formatted(port, action), "test");
    return new ActivePolicy(new PolicyVersion(1, doc.name(), doc.toYaml(), "test", 0, ""), doc, CompiledPolicy.compile(doc),
        Map.of("SNG-EXT", "branch"));
  }

  /** A dispatcher for {@code policy} that places every optimized flow on {@code sn-ext}. */
  static FlowDispatcher dispatcher(Supplier<ActivePolicy> policy) {
    return new FlowDispatcher(policy, (g, s) -> List.of(new Candidate("sn-ext", 100, 0)), new FlowDistributor(100));
  }
}
