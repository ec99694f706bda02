package io.tcpopt.servicenode.session;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The adaptation of a WAN socket's unsent limit, on a clock the test controls. */
class UnsentLimitTest {
  private static final long CEILING = 2 * 1024 * 1024;
  private static final long RTT_MICROS = 100_000;
  private static final long CWND = 1000;

  private long now = 1_000_000_000L;
  private final UnsentLimit limit = new UnsentLimit(CEILING, now);

  /** Advances the clock by {@code millis} and observes. */
  private long after(long millis, boolean backlogged, boolean appLimited, long cwnd) {
    now += TimeUnit.MILLISECONDS.toNanos(millis);
    return limit.observe(now, backlogged, appLimited, cwnd, RTT_MICROS);
  }

  @Test
  void startsAtTheFloor() {
    assertEquals(UnsentLimit.FLOOR, limit.limit());
    assertEquals(64 * 1024, new UnsentLimit(64 * 1024, now).limit(), "a ceiling below the floor is the floor");
  }

  @Test
  void aPacingCapBoundsTheCeilingInTime() {
    long cap = 30_000_000; // 240 Mbit/s
    assertEquals(cap * UnsentLimit.CEILING_MILLIS / 1000, UnsentLimit.ceilingAtPacingCap(CEILING, cap), "milliseconds at the cap");
    assertEquals(CEILING, UnsentLimit.ceilingAtPacingCap(CEILING, 0), "no cap: the socket tuning's ceiling");
    assertEquals(UnsentLimit.FLOOR, UnsentLimit.ceilingAtPacingCap(CEILING, 1_000_000), "a slow cap: not below the floor");
    assertEquals(256 * 1024, UnsentLimit.ceilingAtPacingCap(256 * 1024, 1_000_000_000), "a fast cap: not above the tuning's ceiling");
    UnsentLimit capped = new UnsentLimit(UnsentLimit.ceilingAtPacingCap(CEILING, cap), now);
    long t = now;
    long grown = capped.limit();
    for (int i = 0; i < 200; i++) {
      t += TimeUnit.MILLISECONDS.toNanos(50);
      grown = capped.observe(t, true, true, CWND, RTT_MICROS);
    }
    assertEquals(cap * UnsentLimit.CEILING_MILLIS / 1000, grown, "a starved node grows the limit to the ceiling in time, no further");
  }

  @Test
  void aNodeThatKeepsTheSocketFedStaysAtTheFloor() {
    for (int i = 0; i < 200; i++) {
      assertEquals(UnsentLimit.FLOOR, after(50, true, false, CWND));
    }
  }

  @Test
  void appLimitedWhileTheNodeHeldBytesDoublesTheLimitOncePerSettledInterval() {
    after(50, true, false, CWND); // backlog starts
    // for two round trips (200 ms) the samples describe bytes sent before the backlog: ignored
    assertEquals(UnsentLimit.FLOOR, after(100, true, true, CWND));
    assertEquals(UnsentLimit.FLOOR, after(100, true, true, CWND));
    assertEquals(2 * UnsentLimit.FLOOR, after(60, true, true, CWND));
    // the next doubling waits for the change to show in the samples
    assertEquals(2 * UnsentLimit.FLOOR, after(50, true, true, CWND));
    assertEquals(4 * UnsentLimit.FLOOR, after(250, true, true, CWND));
    for (int i = 0; i < 20; i++) {
      after(250, true, true, CWND);
    }
    assertEquals(CEILING, limit.limit(), "never above the ceiling");
  }

  @Test
  void aSecondWithoutStarvationHalvesTheLimitDownToTheFloor() {
    after(50, true, false, CWND);
    for (int i = 0; i < 10; i++) {
      after(260, true, true, CWND);
    }
    assertEquals(CEILING, limit.limit());
    assertEquals(CEILING, after(900, true, false, CWND));
    assertEquals(CEILING / 2, after(200, true, false, CWND));
    for (int i = 0; i < 100; i++) {
      after(100, true, false, CWND);
    }
    assertEquals(UnsentLimit.FLOOR, limit.limit());
  }

  @Test
  void samplesWithoutBacklogOrAtTheMinimumWindowChangeNothing() {
    for (int i = 0; i < 50; i++) {
      assertEquals(UnsentLimit.FLOOR, after(100, false, true, CWND), "an idle node is application-limited by its traffic, not by being late");
    }
    after(50, true, false, 4);
    for (int i = 0; i < 20; i++) {
      assertEquals(UnsentLimit.FLOOR, after(100, true, true, 4), "BBR's PROBE_RTT marks its samples application-limited");
    }
    // a backlog interrupted starts over: two round trips again before a sample counts
    after(100, false, true, CWND);
    after(50, true, true, CWND);
    assertEquals(UnsentLimit.FLOOR, after(150, true, true, CWND));
    assertEquals(2 * UnsentLimit.FLOOR, after(100, true, true, CWND));
  }
}
