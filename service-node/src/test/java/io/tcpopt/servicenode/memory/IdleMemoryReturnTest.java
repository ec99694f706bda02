package io.tcpopt.servicenode.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** When the node gives memory back: once per burst, after the flows fell and stayed low; with a controllable clock. */
class IdleMemoryReturnTest {
  private int active;
  private long nanos;
  private int returns;
  private final IdleMemoryReturn check = new IdleMemoryReturn("n", () -> active, () -> nanos, () -> returns++);

  private void at(long seconds, int flows) {
    nanos = TimeUnit.SECONDS.toNanos(seconds);
    active = flows;
    check.check();
  }

  @Test
  void onceAfterABurstEndedAndStayedQuiet() {
    at(0, 100);
    at(5, 5_000);
    at(10, 10_000);
    at(15, 200); // the burst closed
    at(20, 150);
    assertEquals(0, returns, "not quiet for long enough yet");
    at(30, 100);
    assertEquals(1, returns, "15 s after the flows fell");
    at(35, 100);
    at(60, 90);
    assertEquals(1, returns, "once per burst");
  }

  @Test
  void neverWhileFlowsRiseAgainOrFellTooLittle() {
    at(0, 10_000);
    at(5, 6_000);
    at(25, 6_000);
    assertEquals(0, returns, "still more than half of the peak");
    at(30, 500);
    at(35, 900); // a new burst begins
    at(50, 900);
    assertEquals(0, returns, "rose again: the quiet period starts over");
    at(70, 900);
    assertEquals(1, returns);
    at(80, 1_500);
    at(85, 600);
    at(105, 600);
    assertEquals(1, returns, "900 fewer flows than the new peak: below the minimum drop");
  }
}
