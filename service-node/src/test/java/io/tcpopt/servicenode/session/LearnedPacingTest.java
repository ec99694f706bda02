package io.tcpopt.servicenode.session;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class LearnedPacingTest {
  private static final long LINK = 30_000_000; // bytes/s, 240 Mbit/s
  private static final int STARTUP = 739;
  private static final int DRAIN = 88;
  private static final int CRUISE = 256;
  private static final int PROBE_UP = 320;

  private final LearnedPacing pacing = new LearnedPacing();

  @Test
  void noCapWhileBbrIsStillInStartup() {
    assertEquals(0, pacing.observe(LINK / 8, STARTUP));
    assertEquals(0, pacing.observe(LINK, STARTUP));
    assertEquals(0, pacing.cap());
  }

  @Test
  void theCapIsATenthAboveTheLargestSteadyEstimate() {
    assertEquals(33_000_000, pacing.observe(LINK, DRAIN));
    assertEquals(33_000_000, pacing.cap());
    // lower estimates (a probe down, a loss, a collapse) leave it where it is
    assertEquals(0, pacing.observe(LINK * 3 / 4, CRUISE));
    assertEquals(0, pacing.observe(LINK / 10, CRUISE));
    assertEquals(33_000_000, pacing.cap());
  }

  @Test
  void theCapFollowsAFasterPathInStepsOfATenth() {
    pacing.observe(LINK, CRUISE);
    long cap = pacing.cap();
    // each probe can deliver up to the cap, so the estimate (and the cap) grows a tenth per cycle
    for (int cycle = 0; cycle < 10; cycle++) {
      long next = pacing.observe(cap, PROBE_UP);
      assertEquals((long) (cap * LearnedPacing.HEADROOM), next);
      cap = next;
    }
    assertEquals((long) (LINK * Math.pow(1.1, 11)), cap, cap / 1000);
  }

  @Test
  void aRestartedStartupIsCappedJustBelowTheRateLearned() {
    pacing.observe(LINK, CRUISE);
    // a CongestionRestart: BBR is back in STARTUP and its estimate starts over
    assertEquals((long) (LINK * LearnedPacing.STARTUP_SHARE), pacing.observe(0, STARTUP));
    assertEquals(0, pacing.observe(LINK / 2, STARTUP), "the cap holds through STARTUP");
    assertEquals((long) (LINK * LearnedPacing.STARTUP_SHARE), pacing.cap());
    assertEquals(33_000_000, pacing.observe(LINK * 98 / 100, DRAIN), "out of STARTUP: a tenth above the largest again");
  }

  @Test
  void aStartupCapIsNotCarriedToThePeersNextConnection() {
    java.util.List<Long> remembered = new java.util.ArrayList<>();
    LearnedPacing learner = new LearnedPacing(0, remembered::add);
    learner.observe(LINK, CRUISE);
    learner.observe(LINK, STARTUP);
    assertEquals(java.util.List.of(33_000_000L), remembered);
  }

  @Test
  void smallChangesDoNotMoveTheCap() {
    pacing.observe(LINK, CRUISE);
    assertEquals(0, pacing.observe(LINK + LINK / 200, CRUISE), "half a percent more");
    assertEquals(33_000_000, pacing.cap());
    assertEquals((long) ((LINK + LINK / 50) * 1.1), pacing.observe(LINK + LINK / 50, CRUISE), "two percent more");
  }

  @Test
  void nothingIsLearnedWithoutAnEstimateOrAGain() {
    assertEquals(0, pacing.observe(0, CRUISE));
    assertEquals(0, pacing.observe(LINK, 0));
    assertEquals(0, pacing.cap());
  }

  @Test
  void aCarriedCapHoldsUntilTheFirstSteadyEstimateAndEveryCapIsRemembered() {
    java.util.List<Long> remembered = new java.util.ArrayList<>();
    LearnedPacing carried = new LearnedPacing(33_000_000, remembered::add);
    assertEquals(33_000_000, carried.cap(), "the socket starts capped");
    assertEquals(0, carried.observe(LINK * 2, STARTUP), "STARTUP learns nothing, the carried cap stays");
    assertEquals(33_000_000, carried.cap());
    assertEquals(0, carried.observe(LINK, CRUISE), "the same path: the cap does not move");
    assertEquals(java.util.List.of(), remembered);
    // a slower path than the one the cap was learned on: the cap comes down to it
    LearnedPacing slower = new LearnedPacing(33_000_000, remembered::add);
    assertEquals(16_500_000, slower.observe(LINK / 2, CRUISE));
    assertEquals(java.util.List.of(16_500_000L), remembered);
    assertEquals(33_000_000, slower.observe(LINK, PROBE_UP));
    assertEquals(java.util.List.of(16_500_000L, 33_000_000L), remembered);
  }

  @Test
  void capsAreCarriedPerNodeAndPeerForALimitedTime() {
    long t = 1_000_000_000_000L;
    LearnedRates nodeA = new LearnedRates();
    LearnedRates nodeB = new LearnedRates();
    assertEquals(0, nodeA.recall("lp-b", t));
    nodeA.remember("lp-b", 33_000_000, t);
    assertEquals(33_000_000, nodeA.recall("lp-b", t + 1));
    assertEquals(0, nodeB.recall("lp-a", t + 1), "the other direction is the other node's");
    assertEquals(0, nodeB.recall("lp-b", t + 1), "another node, even to the same peer name");
    assertEquals(0, nodeA.recall("lp-c", t + 1));
    assertEquals(33_000_000, nodeA.recall("lp-b", t + LearnedRates.MAX_AGE_NANOS));
    assertEquals(0, nodeA.recall("lp-b", t + LearnedRates.MAX_AGE_NANOS + 1), "too old: the path may have changed");
    nodeA.remember("lp-b", 20_000_000, t + 5);
    assertEquals(20_000_000, nodeA.recall("lp-b", t + 6), "the last one learned");
    assertEquals(0, nodeA.recall(null, t));
  }
}
