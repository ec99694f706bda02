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
}
