package io.tcpopt.cli.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.tcpopt.common.policy.Action;
import io.tcpopt.common.policy.CompiledPolicy;
import io.tcpopt.common.policy.DataReduction;
import io.tcpopt.common.policy.PolicyDocument;
import io.tcpopt.common.policy.Verdict;
import io.tcpopt.common.profile.LegProfiles;
import io.tcpopt.controller.distribution.Candidate;
import io.tcpopt.controller.distribution.FlowDispatcher;
import io.tcpopt.controller.distribution.FlowDistributor;
import io.tcpopt.controller.policy.ActivePolicy;
import io.tcpopt.controller.policy.PolicyVersion;
import io.tcpopt.servicenode.FlowDecider;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The policy's per-leg TCP profiles and data reduction travel in the verdict, and the far node's
 * lookup has no side effects.
 */
class PolicyDeciderTest {
  private static final String POLICY =
      """
      prefix-lists:
        BR: [198.18.1.0/24]
        DC: [198.19.1.0/24]
      service-node-groups:
        SNG: { site: branch }
      tcp-profiles:
        SLOW-CLIENT: { parent: tcp-lan-optimized, nagle: true, send-buffer: 64KiB, idle-timeout: 30s }
        BIG-SERVER: { parent: tcp-lan-optimized, receive-buffer: 4MiB, congestion-control: reno }
      data-policy:
        name: profiles
        sequences:
          - seq: 10
            match: { source-prefix-list: BR, destination-prefix-list: DC }
            action: { optimize: { service-node-group: SNG, profiles: { client: SLOW-CLIENT, server: BIG-SERVER },
                                  data-reduction: { compression: zstd, deduplication: on } } }
        default-action: pass-through
      """;
  private static final DataReduction ZSTD_DEDUP = new DataReduction(DataReduction.Compression.ZSTD, true);
  private static final InetSocketAddress CLIENT = new InetSocketAddress("198.18.1.5", 40000);
  private static final InetSocketAddress SERVER = new InetSocketAddress("198.19.1.2", 443);
  private static final InetSocketAddress ELSEWHERE = new InetSocketAddress("198.19.9.9", 443);

  @Test
  void staticPolicyVerdictCarriesTheLegProfiles() {
    FlowDecider d = PolicyDecider.of(CompiledPolicy.compile(PolicyDocument.parse(POLICY, "test")));
    Verdict v = d.decide(CLIENT, SERVER);
    assertEquals(Action.OPTIMIZE, v.action());
    assertNotNull(v.profiles());
    assertEquals("SLOW-CLIENT", v.profiles().client().name());
    assertEquals(true, v.profiles().client().nagle());
    assertEquals(64 * 1024, v.profiles().client().sendBuffer());
    assertEquals("BIG-SERVER", v.profiles().server().name());
    assertEquals("reno", v.profiles().server().congestionControl());
    assertEquals("BIG-SERVER", d.profiles(CLIENT, SERVER).server().name(), "the far node finds the same server profile");
    assertEquals(ZSTD_DEDUP, v.dataReduction());
    assertNull(d.decide(CLIENT, ELSEWHERE).profiles(), "pass-through carries no profiles");
    assertEquals(DataReduction.OFF, d.decide(CLIENT, ELSEWHERE).dataReduction());
    assertNull(d.profiles(CLIENT, ELSEWHERE));
  }

  @Test
  void dispatcherDeciderPassesProfilesAndTheFarNodeLookupCountsNothing() {
    PolicyDocument doc = PolicyDocument.parse(POLICY, "test");
    ActivePolicy active = new ActivePolicy(new PolicyVersion(1, doc.name(), doc.toYaml(), "test", 0, ""), doc, CompiledPolicy.compile(doc),
        Map.of("SNG", "branch"));
    FlowDispatcher dispatcher = new FlowDispatcher(() -> active, (g, s) -> List.of(new Candidate("sn-1", 100, 0)), new FlowDistributor(100));
    List<Action> counted = new ArrayList<>();
    dispatcher.countWith(counted::add);
    FlowDecider d = PolicyDecider.of(dispatcher);

    LegProfiles far = d.profiles(CLIENT, SERVER);
    assertEquals("BIG-SERVER", far.server().name());
    assertFalse(!counted.isEmpty(), "profiles() must not count a verdict");

    Verdict v = d.decide(CLIENT, SERVER);
    assertEquals(Action.OPTIMIZE, v.action(), v.reason());
    assertEquals("SLOW-CLIENT", v.profiles().client().name());
    assertEquals(ZSTD_DEDUP, v.dataReduction());
    assertEquals(List.of(Action.OPTIMIZE), counted);
  }
}
