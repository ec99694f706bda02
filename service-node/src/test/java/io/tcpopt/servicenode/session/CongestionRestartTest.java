package io.tcpopt.servicenode.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class CongestionRestartTest {
  private static final long LINK = 30_000_000; // bytes/s, 240 Mbit/s
  private static final long CWND = 12_000;
  private static final long TICK = TimeUnit.MILLISECONDS.toNanos(50);

  private long now = TimeUnit.SECONDS.toNanos(100);
  private final CongestionRestart restart = new CongestionRestart("bbr", now);

  private boolean next(boolean backlogged, long bandwidth, long cwnd) {
    now += TICK;
    return restart.observe(now, backlogged, bandwidth, cwnd);
  }

  /** Ticks until a restart or {@code ticks} have passed; returns the tick of the restart or -1. */
  private int ticksUntilRestart(int ticks, boolean backlogged, long bandwidth, long cwnd) {
    for (int i = 0; i < ticks; i++) {
      if (next(backlogged, bandwidth, cwnd)) {
        return i;
      }
    }
    return -1;
  }

  @Test
  void aSteadyEstimateNeverRestarts() {
    assertEquals(-1, ticksUntilRestart(200, true, LINK, CWND));
    assertEquals(-1, ticksUntilRestart(200, true, LINK * 6 / 10, CWND), "60% of the peak is not a collapse");
    assertEquals(0, restart.restarts());
  }

  @Test
  void aCollapseWithBytesWaitingRestartsOnceConfirmed() {
    ticksUntilRestart(20, true, LINK, CWND);
    int tick = ticksUntilRestart(20, true, LINK / 10, 700);
    // The first low tick starts the clock; CONFIRM_NANOS (100 ms) later, at 50 ms per tick, it restarts.
    assertEquals(CongestionRestart.CONFIRM_NANOS / TICK, tick);
    assertEquals(1, restart.restarts());
  }

  @Test
  void aDipShorterThanTheConfirmationDoesNothing() {
    ticksUntilRestart(20, true, LINK, CWND);
    assertFalse(next(true, LINK / 10, CWND));
    assertFalse(next(true, LINK, CWND));
    assertFalse(next(true, LINK / 10, CWND));
    assertFalse(next(true, LINK, CWND));
    assertEquals(0, restart.restarts());
  }

  @Test
  void anIdleConnectionIsNeverRestarted() {
    ticksUntilRestart(20, true, LINK, CWND);
    assertEquals(-1, ticksUntilRestart(200, false, LINK / 100, CWND), "nothing waits: the estimate does not matter");
  }

  @Test
  void notDuringProbeRttButRightAfterIt() {
    ticksUntilRestart(20, true, LINK, CWND);
    assertEquals(-1, ticksUntilRestart(10, true, LINK / 10, CongestionRestart.PROBE_RTT_CWND));
    assertEquals(0, ticksUntilRestart(1, true, LINK / 10, 400));
  }

  @Test
  void thePeakIsForgottenAtARestartSoASlowerPathCostsOneRestart() {
    ticksUntilRestart(20, true, LINK, CWND);
    assertTrue(ticksUntilRestart(20, true, LINK / 10, CWND) >= 0);
    // The path really is slower now: BBR's new estimate stays at a tenth, and no later restart comes.
    assertEquals(-1, ticksUntilRestart(1000, true, LINK / 10, CWND));
    assertEquals(1, restart.restarts());
  }

  @Test
  void atMostOneRestartPerGap() {
    ticksUntilRestart(20, true, LINK, CWND);
    assertTrue(ticksUntilRestart(20, true, LINK / 10, CWND) >= 0);
    ticksUntilRestart(20, true, LINK, CWND);
    int tick = ticksUntilRestart(1000, true, LINK / 10, CWND);
    assertTrue(tick >= 0);
    assertTrue((20 + tick + 1) * TICK >= CongestionRestart.MIN_GAP_NANOS, "second restart came " + (20 + tick + 1) * TICK / 1e9 + " s after the first");
    assertEquals(2, restart.restarts());
  }

  @Test
  void unknownEstimatesAreIgnored() {
    assertEquals(-1, ticksUntilRestart(100, true, 0, CWND));
  }

  private static final long RTT = 300_000; // microseconds
  private static final int REFRESH_TICKS = (int) (CongestionRestart.REFRESH_NANOS / TICK);

  /** Ticks until a refresh is due or {@code ticks} have passed; returns the tick of the refresh or -1. */
  private int ticksUntilRefresh(int ticks, boolean backlogged, boolean probeRtt, long srtt) {
    for (int i = 0; i < ticks; i++) {
      now += TICK;
      if (restart.refreshDue(now, backlogged, probeRtt, srtt, RTT, true)) {
        return i;
      }
    }
    return -1;
  }

  @Test
  void aBusyConnectionIsRefreshedBeforeItsProbeRttAndAgainAfterEach() {
    assertEquals(REFRESH_TICKS - 1, ticksUntilRefresh(1000, true, false, RTT + 1_500));
    assertEquals(REFRESH_TICKS - 1, ticksUntilRefresh(1000, true, false, RTT + 1_500));
    assertEquals(2, restart.refreshes());
  }

  @Test
  void theExpressConnectionsProbeRttDelaysWhileItsWindowWouldHoldPacketsBack() {
    long window = CongestionRestart.PROBE_RTT_CWND;
    assertTrue(CongestionRestart.probeRttDelays(false, true, window), "an echo every 50 ms at 200 ms: 4-5 in flight");
    assertFalse(CongestionRestart.probeRttDelays(false, true, window - 1), "at 100 ms: 2-3 in flight, within the window");
    assertFalse(CongestionRestart.probeRttDelays(false, false, 1_000), "a bulk connection with nothing waiting: its tail");
    assertTrue(CongestionRestart.probeRttDelays(true, false, 0));
  }

  @Test
  void aProbeRttSeenPostponesTheRefresh() {
    ticksUntilRefresh(REFRESH_TICKS / 2, true, false, RTT);
    assertEquals(-1, ticksUntilRefresh(1, true, true, RTT));
    assertEquals(REFRESH_TICKS - 1, ticksUntilRefresh(1000, true, false, RTT), "counted from the PROBE_RTT");
  }

  @Test
  void aRetransmissionTimeoutsSmallWindowIsNoProbeRtt() {
    assertTrue(CongestionRestart.inProbeRtt(CongestionRestart.PROBE_RTT_CWND_GAIN));
    assertFalse(CongestionRestart.inProbeRtt(512), "PROBE_BW, whatever its window (seen: 1 packet after a timeout at 2% loss)");
    assertFalse(CongestionRestart.inProbeRtt(739), "STARTUP");
    assertFalse(CongestionRestart.inProbeRtt(-1), "unknown");
    ticksUntilRefresh(REFRESH_TICKS / 2, true, false, RTT);
    assertEquals(REFRESH_TICKS / 2 - 1, ticksUntilRefresh(1000, true, CongestionRestart.inProbeRtt(512), RTT),
        "a timeout half way leaves the refresh where BBR's PROBE_RTT would be");
  }

  @Test
  void noRefreshWhileIdleOrWhileTheRttIsWellAboveItsMinimum() {
    assertEquals(-1, ticksUntilRefresh(3 * REFRESH_TICKS, false, false, RTT));
    // the path's RTT may have grown: BBR's own PROBE_RTT must learn it
    assertEquals(-1, ticksUntilRefresh(3 * REFRESH_TICKS, true, false, RTT * 13 / 10));
    assertEquals(0, ticksUntilRefresh(1, true, false, RTT * 12 / 10));
    // without BBR's minimum nothing is known
    now += CongestionRestart.REFRESH_NANOS;
    assertFalse(restart.refreshDue(now, true, false, RTT, 0, true));
    assertEquals(1, restart.refreshes());
  }

  @Test
  void aRefreshIsJudgedByTheMinimumRttTheRestartWouldInstall() {
    // the RTT went from 150 to 300 ms: BBR relearned 300 ms, the connection's own minimum is still 150
    long installed = CongestionRestart.restartMinRtt(RTT / 2, RTT);
    assertEquals(RTT / 2, installed);
    assertEquals(-1, ticksUntilRefreshWithMinimum(3 * REFRESH_TICKS, RTT + 1_500, installed), "BBR's own PROBE_RTT must keep 300 ms");
    assertEquals(RTT, CongestionRestart.restartMinRtt(RTT, RTT));
    assertEquals(RTT, CongestionRestart.restartMinRtt(0, RTT), "an older kernel: BBR's minimum");
    assertEquals(0, CongestionRestart.restartMinRtt(RTT, 0), "BBR's minimum unknown: no refresh");
    assertEquals(0, ticksUntilRefreshWithMinimum(1000, RTT + 1_500, CongestionRestart.restartMinRtt(RTT, RTT)),
        "once the connection's own minimum is the path's again, the overdue refresh comes at once");
  }

  private int ticksUntilRefreshWithMinimum(int ticks, long srtt, long minRtt) {
    for (int i = 0; i < ticks; i++) {
      now += TICK;
      if (restart.refreshDue(now, true, false, srtt, minRtt, true)) {
        return i;
      }
    }
    return -1;
  }

  @Test
  void inLossRecoveryTheRefreshWaitsForAFullPipe() {
    // 300 ms x 30 MB/s = 9 MB: 6,215 segments of 1448 bytes
    long bdpSegments = LINK * RTT / 1_000_000 / 1448;
    assertTrue(CongestionRestart.keepsWindow(io.tcpopt.common.net.TcpInfoSnapshot.CA_OPEN, 10, 1448, LINK, RTT), "open: nothing is cut");
    assertTrue(CongestionRestart.keepsWindow(io.tcpopt.common.net.TcpInfoSnapshot.CA_DISORDER, 10, 1448, LINK, RTT));
    assertTrue(CongestionRestart.keepsWindow(io.tcpopt.common.net.TcpInfoSnapshot.CA_RECOVERY, bdpSegments, 1448, LINK, RTT));
    assertFalse(CongestionRestart.keepsWindow(io.tcpopt.common.net.TcpInfoSnapshot.CA_RECOVERY, bdpSegments / 2, 1448, LINK, RTT),
        "seen: 12,048 -> 1,042 segments");
    assertFalse(CongestionRestart.keepsWindow(io.tcpopt.common.net.TcpInfoSnapshot.CA_LOSS, bdpSegments / 2, 1448, LINK, RTT));
    assertFalse(CongestionRestart.keepsWindow(io.tcpopt.common.net.TcpInfoSnapshot.CA_RECOVERY, bdpSegments, 0, LINK, RTT), "unknown mss");

    // due after REFRESH_TICKS, but the pipe is half empty for 10 ticks: the refresh comes on the first full one
    for (int i = 0; i < REFRESH_TICKS + 10; i++) {
      now += TICK;
      assertFalse(restart.refreshDue(now, true, false, RTT, RTT, false));
    }
    assertEquals(11, restart.deferredRefreshes());
    assertEquals(0, restart.refreshes());
    now += TICK;
    assertTrue(restart.refreshDue(now, true, false, RTT, RTT, true));
    assertEquals(1, restart.refreshes());
    // if the pipe never fills, BBR's own PROBE_RTT comes and counts as the refresh
    assertEquals(-1, ticksUntilRefresh(REFRESH_TICKS - 1, true, false, RTT));
    now += TICK;
    assertFalse(restart.refreshDue(now, true, false, RTT, RTT, false));
    now += TICK;
    assertFalse(restart.refreshDue(now, true, true, RTT, RTT, false));
    assertEquals(-1, ticksUntilRefresh(REFRESH_TICKS - 1, true, false, RTT), "counted from the PROBE_RTT");
    assertEquals(1, restart.refreshes());
  }

  @Test
  void aRefreshStartsThePeakOverSoItsFirstLowEstimatesAreNoCollapse() {
    ticksUntilRestart(20, true, LINK, CWND);
    assertTrue(ticksUntilRefresh(1000, true, false, RTT) >= 0);
    assertEquals(-1, ticksUntilRestart(20, true, LINK / 5, CWND), "BBR's estimate starting over");
    assertEquals(-1, ticksUntilRestart(20, true, LINK, CWND));
    assertEquals(0, restart.restarts());
    assertEquals(CongestionRestart.CONFIRM_NANOS / TICK, ticksUntilRestart(20, true, LINK / 10, CWND), "a collapse from the new peak");
  }

  @Test
  void aCollapseRestartAlsoCountsAsARefresh() {
    ticksUntilRestart(20, true, LINK, CWND);
    assertTrue(ticksUntilRestart(20, true, LINK / 10, CWND) >= 0);
    assertEquals(REFRESH_TICKS - 1, ticksUntilRefresh(1000, true, false, RTT));
  }
}
