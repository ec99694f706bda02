package io.tcpopt.servicenode.session;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.util.concurrent.MockTicker;
import io.netty.util.concurrent.Ticker;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The growth judgement of a stream's receive window, on a clock the test moves. */
class ReceiveWindowTest {
  private static final int WINDOW = 4 << 20;
  private static final long RTT_NANOS = TimeUnit.MILLISECONDS.toNanos(300);

  private final MockTicker ticker = Ticker.newMockTicker();
  private final ReceiveWindow window = new ReceiveWindow(WINDOW, 16 * WINDOW, WINDOW, ticker);

  private static final int QUARTER = WINDOW / ReceiveWindow.JUDGED_PARTS;

  /** The leg takes half a quarter of the window, then the other half {@code millis} later. */
  private int growthAfterAQuarterIn(long millis) {
    window.written(QUARTER / 2);
    ticker.advanceMillis(millis);
    window.written(QUARTER / 2);
    return window.growth(RTT_NANOS);
  }

  @Test
  void aQuarterTakenWithinARoundTripGrowsFourfold() {
    // A window per four round trips, judged on its first quarter: a new stream's start credit grows
    // within a round trip of its first bytes (at 300 ms / 1% loss it was judged ~1.1 s in, the
    // sender out of credit meanwhile).
    assertEquals(3 * WINDOW, growthAfterAQuarterIn(300), "a quarter in one round trip: the window held the sender back");
    assertEquals(WINDOW, window.size(), "judged, not grown: the caller reserves the growth first");
  }

  @Test
  void aQuarterTakenMoreSlowlyStaysAsItIs() {
    assertEquals(0, growthAfterAQuarterIn(300 + 1), "slower than a window per four round trips: the leg or the sender set the pace");
    assertEquals(WINDOW, window.size());
  }

  @Test
  void lessThanAQuarterIsNotJudgedYet() {
    window.written(QUARTER - 1);
    assertEquals(0, window.growth(RTT_NANOS), "not a quarter yet");
    window.written(1);
    assertEquals(3 * WINDOW, window.growth(RTT_NANOS), "the same measurement, judged once a quarter was written");
  }

  @Test
  void aSlowQuarterStartsANewMeasurement() {
    assertEquals(0, growthAfterAQuarterIn(2 * 300));
    assertEquals(3 * WINDOW, growthAfterAQuarterIn(100), "the next quarter is judged on its own time");
  }

  @Test
  void withoutARoundTripTheIntervalIsItsFloor() {
    window.written(QUARTER / 2);
    ticker.advanceMillis(ReceiveWindow.MIN_GROWTH_INTERVAL_MILLIS / ReceiveWindow.JUDGED_PARTS + 1);
    window.written(QUARTER / 2);
    assertEquals(0, window.growth(-1), "no PING answered yet");
  }
}
