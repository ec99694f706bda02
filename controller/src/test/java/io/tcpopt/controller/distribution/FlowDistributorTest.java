package io.tcpopt.controller.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.common.policy.FlowKey;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class FlowDistributorTest {
  private static final List<Candidate> THREE =
      List.of(new Candidate("sn-1", 1000, 0), new Candidate("sn-2", 1000, 0), new Candidate("sn-3", 1000, 0));

  static List<FlowKey> flows(int n, long seed) {
    Random r = new Random(seed);
    List<FlowKey> out = new ArrayList<>();
    try {
      for (int i = 0; i < n; i++) {
        InetAddress src = InetAddress.getByAddress(new byte[] {(byte) 198, 18, 1, (byte) r.nextInt(256)});
        InetAddress dst = InetAddress.getByAddress(new byte[] {(byte) 198, 19, 1, (byte) r.nextInt(256)});
        out.add(new FlowKey(0, src, 1024 + r.nextInt(60_000), dst, 5201));
      }
    } catch (UnknownHostException e) {
      throw new AssertionError(e);
    }
    return out;
  }

  @Test
  void aFlowAlwaysGoesToTheSameNode() {
    FlowDistributor first = new FlowDistributor(100_000);
    FlowDistributor second = new FlowDistributor(100_000);
    List<Candidate> reordered = List.of(THREE.get(2), THREE.get(0), THREE.get(1));
    Map<String, Integer> used = new HashMap<>();
    for (FlowKey k : flows(2000, 1)) {
      String a = first.place(k, "G", THREE).node();
      assertEquals(a, first.place(k, "G", THREE).node(), "same distributor");
      assertEquals(a, second.place(k, "G", reordered).node(), "another controller, other member order");
      used.merge(a, 1, Integer::sum);
    }
    assertEquals(3, used.size(), "all members used: " + used);
  }

  @Test
  void sharesFollowCapacity() {
    List<Candidate> weighted =
        List.of(new Candidate("small", 100, 0), new Candidate("medium", 200, 0), new Candidate("large", 700, 0));
    Map<String, Integer> count = new HashMap<>();
    int n = 30_000;
    for (FlowKey k : flows(n, 2)) {
      count.merge(FlowDistributor.rendezvous(k, weighted), 1, Integer::sum);
    }
    assertEquals(0.10, count.get("small") / (double) n, 0.015, count.toString());
    assertEquals(0.20, count.get("medium") / (double) n, 0.015, count.toString());
    assertEquals(0.70, count.get("large") / (double) n, 0.015, count.toString());
  }

  @Test
  void aJoiningNodeMovesNoExistingFlowAndTakesOnlyNewOnes() {
    FlowDistributor d = new FlowDistributor(100_000);
    List<FlowKey> existing = flows(3000, 3);
    Map<FlowKey, String> before = new HashMap<>();
    for (FlowKey k : existing) {
      before.put(k, d.place(k, "G", THREE).node());
    }
    List<Candidate> four = new ArrayList<>(THREE);
    four.add(new Candidate("sn-4", 1000, 0));
    for (FlowKey k : existing) {
      assertEquals(before.get(k), d.place(k, "G", four).node(), "existing flow moved");
    }
    // Even without the pin table, hashing only moves flows to the new node, about a quarter of them.
    int moved = 0;
    for (FlowKey k : existing) {
      String now = FlowDistributor.rendezvous(k, four);
      if (!now.equals(before.get(k))) {
        assertEquals("sn-4", now, "a flow moved between old nodes");
        moved++;
      }
    }
    assertEquals(0.25, moved / 3000.0, 0.04);
    int toNew = 0;
    for (FlowKey k : flows(2000, 4)) {
      if ("sn-4".equals(d.place(k, "G", four).node())) {
        toNew++;
      }
    }
    assertTrue(toNew > 350 && toNew < 650, "new flows to the new node: " + toNew);
  }

  @Test
  void aGroupAtNinetyFivePercentPassesNewFlowsThroughWithTheReason() {
    FlowDistributor d = new FlowDistributor(1000);
    FlowKey k = flows(1, 5).get(0);
    List<Candidate> busy = List.of(new Candidate("sn-1", 100, 95), new Candidate("sn-2", 100, 95));
    Placement p = d.place(k, "SNG-BR", busy);
    assertTrue(p.passThrough());
    assertNull(p.node());
    assertEquals("service-node group SNG-BR at 95% of its flow capacity (190/200 flows)", p.reason());
    List<Candidate> almost = List.of(new Candidate("sn-1", 100, 94), new Candidate("sn-2", 100, 94));
    assertNotEquals(null, d.place(k, "SNG-BR", almost).node());
    assertEquals("pinned", d.place(k, "SNG-BR", busy).reason(), "a flow already placed keeps its node");
  }

  @Test
  void withoutHealthyMembersFlowsPassThroughAndAFailedNodesFlowsMove() {
    FlowDistributor d = new FlowDistributor(1000);
    FlowKey k = flows(1, 6).get(0);
    assertEquals("no healthy service node in group G", d.place(k, "G", List.of()).reason());
    String first = d.place(k, "G", THREE).node();
    List<Candidate> survivors = new ArrayList<>(THREE);
    survivors.removeIf(c -> c.name().equals(first));
    String second = d.place(k, "G", survivors).node();
    assertNotEquals(first, second);
    d.release(k);
    assertEquals(0, d.pinnedFlows());
  }

  @Test
  void thePinTableIsBounded() {
    FlowDistributor d = new FlowDistributor(100);
    for (FlowKey k : flows(1000, 7)) {
      d.place(k, "G", THREE);
    }
    assertEquals(100, d.pinnedFlows());
    FlowDistributor alone = new FlowDistributor(100);
    for (FlowKey k : flows(10, 8)) {
      assertEquals("sn-1", alone.place(k, "G", THREE.subList(0, 1)).node());
    }
    assertEquals(0, alone.pinnedFlows(), "a single member needs no pins (integrated mode)");
  }
}
