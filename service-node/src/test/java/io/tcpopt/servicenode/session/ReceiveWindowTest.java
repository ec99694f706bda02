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

  /** The leg takes half the window, then the other half {@code millis} later. */
  private int growthAfterAWindowIn(long millis) {
    window.written(WINDOW / 2);
    ticker.advanceMillis(millis);
    window.written(WINDOW / 2);
    return window.growth(RTT_NANOS);
  }

  @Test
  void aWindowTakenWithinFourRoundTripsGrowsFourfold() {
    // 300 ms / 2% loss: every byte waits behind a hole for a round trip or two, so a window-bound
    // sender's window comes back to the leg over three round trips rather than one.
    assertEquals(3 * WINDOW, growthAfterAWindowIn(3 * 300), "three round trips: the window held the sender back");
  }

  @Test
  void aWindowTakenMoreSlowlyStaysAsItIs() {
    assertEquals(0, growthAfterAWindowIn(4 * 300 + 1), "slower than four round trips: the leg or the sender set the pace");
    assertEquals(WINDOW, window.size());
  }

  @Test
  void withoutARoundTripTheIntervalIsItsFloor() {
    window.written(WINDOW / 2);
    ticker.advanceMillis(ReceiveWindow.MIN_GROWTH_INTERVAL_MILLIS + 1);
    window.written(WINDOW / 2);
    assertEquals(0, window.growth(-1), "no PING answered yet");
  }
}
