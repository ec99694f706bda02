package io.tcpopt.common.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class CompiledPolicyTest {
  private final CompiledPolicy policy = CompiledPolicy.compile(PolicyDocument.parse(PolicyDocumentTest.SAMPLE, "sample"));

  private static FlowKey flow(int vpn, String src, int sport, String dst, int dport) throws Exception {
    return new FlowKey(vpn, InetAddress.getByName(src), sport, InetAddress.getByName(dst), dport);
  }

  @Test
  void firstMatchingSequenceWinsInNumericOrder() throws Exception {
    Verdict d = policy.classify(flow(10, "198.18.1.7", 40000, "198.19.1.2", 443));
    assertEquals(Action.OPTIMIZE, d.action());
    assertEquals(1, d.sequence());
    assertEquals("SNG-APPQOE", d.serviceNodeGroup());
    assertEquals("bulk", d.profiles().wan().name());
    assertEquals("tcp-lan-optimized", d.profiles().client().name());
    assertEquals("policy vpn10-appqoe seq 1: optimize via SNG-APPQOE", d.reason());
  }

  @Test
  void portAndVpnConditionsNarrowTheMatch() throws Exception {
    // seq 1 needs vpn 10 and port 80/443/8000-8999; port 22 falls to seq 21.
    Verdict d = policy.classify(flow(10, "198.18.1.7", 40000, "198.19.1.2", 22));
    assertEquals(Action.PASS_THROUGH, d.action());
    assertEquals("policy vpn10-appqoe seq 21: pass-through", d.reason());
    assertNull(d.profiles());
    assertEquals(1, policy.classify(flow(10, "198.18.1.7", 1, "198.19.1.2", 8999)).sequence());
    assertEquals(0, policy.classify(flow(10, "198.18.1.7", 1, "198.19.1.2", 9000)).sequence());
    assertEquals(0, policy.classify(flow(11, "198.18.1.7", 1, "198.19.1.2", 443)).sequence());
  }

  @Test
  void ipv6PrefixesMatchIpv6Flows() throws Exception {
    Verdict d = policy.classify(flow(0, "2001:db8:100:ffff::1", 5000, "198.18.1.9", 1));
    assertEquals(11, d.sequence());
    assertEquals(0, policy.classify(flow(0, "2001:db8:101::1", 5000, "198.18.1.9", 1)).sequence());
  }

  @Test
  void defaultActionAppliesWhenNothingMatches() throws Exception {
    Verdict d = policy.classify(flow(20, "10.0.0.1", 999, "10.0.0.2", 80));
    assertEquals(Action.DROP, d.action());
    assertEquals(0, d.sequence());
    assertEquals("default action: drop (no sequence matched)", d.reason());
    assertEquals(30, policy.classify(flow(20, "10.0.0.1", 1500, "10.0.0.2", 80)).sequence());
  }

  @Test
  void classifyingIpv4FlowsAllocatesNothing() throws Exception {
    ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    assumeTrue(threads.isThreadAllocatedMemorySupported(), "no allocation counter in this JVM");
    FlowKey[] flows = {
      flow(10, "198.18.1.7", 40000, "198.19.1.2", 443),
      flow(10, "198.18.1.7", 40000, "198.19.1.2", 22),
      flow(20, "10.0.0.1", 1500, "10.0.0.2", 80),
      flow(20, "10.0.0.1", 999, "10.0.0.2", 80)
    };
    long sequences = 0;
    for (int i = 0; i < 1000; i++) { // load classes, settle the counter
      sequences += policy.classify(flows[i & 3]).sequence();
    }
    long tid = Thread.currentThread().getId();
    long before = threads.getThreadAllocatedBytes(tid);
    for (int i = 0; i < 100_000; i++) {
      sequences += policy.classify(flows[i & 3]).sequence();
    }
    long allocated = threads.getThreadAllocatedBytes(tid) - before;
    assertTrue(allocated < 1024, "classify allocated " + allocated + " bytes over 100,000 flows");
    assertEquals(1000 / 4 * (1 + 21 + 30) + 100_000 / 4 * (1 + 21 + 30), sequences);
  }

  @Test
  void decisionsAreSharedNotAllocatedPerFlow() throws Exception {
    FlowKey a = FlowKey.of(10, new InetSocketAddress("198.18.1.7", 1), new InetSocketAddress("198.19.1.2", 80));
    FlowKey b = flow(10, "198.18.1.200", 2, "198.19.1.99", 443);
    assertSame(policy.classify(a), policy.classify(b));
  }
}
