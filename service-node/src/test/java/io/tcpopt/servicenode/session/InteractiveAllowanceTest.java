package io.tcpopt.servicenode.session;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The express connection's allowance per stream: a burst, then its refill rate, with times given. */
class InteractiveAllowanceTest {
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

  @Test
  void aRequestEvery50msNeverRunsItDry() {
    InteractiveAllowance a = new InteractiveAllowance();
    for (int i = 0; i < 1000; i++) {
      assertTrue(a.allows(1024, i * 50 * MS), "request " + i);
      a.spend(1024);
    }
  }

  @Test
  void aStreamSendingMoreSpendsItsBurstThenGetsTheRefillRate() {
    InteractiveAllowance a = new InteractiveAllowance();
    long t = 1_000 * MS;
    assertTrue(a.allows(InteractiveAllowance.BURST, t));
    a.spend(InteractiveAllowance.BURST);
    assertFalse(a.allows(1, t), "the burst is spent");
    long tenMs = InteractiveAllowance.RATE / 100; // what 10 ms bring back
    assertFalse(a.allows(tenMs + 1, t + 10 * MS));
    assertTrue(a.allows(tenMs, t + 10 * MS));
    assertFalse(a.allows(InteractiveAllowance.BURST + 1, t + 10_000 * MS), "never more than the burst");
    assertTrue(a.allows(InteractiveAllowance.BURST, t + 10_000 * MS));
  }
}
