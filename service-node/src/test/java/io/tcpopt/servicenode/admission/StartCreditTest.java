package io.tcpopt.servicenode.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The start credit of a new stream: large while the budget has plenty free, nothing under
 * pressure, its total bounded by the pool and never beyond the budget.
 */
class StartCreditTest {
  private static final long MIB = 1 << 20;
  /** A 7.8 MB stream window (250 Mbit/s x 250 ms) less the 64 KiB initial window. */
  private static final long MOST = 7_812_500 - 64 * 1024;
  /** The optimized share of a 1 GiB JVM's default budget (512 MiB). */
  private static final long SHARE = 384 * MIB;

  @Test
  void plentyFreeGivesTheWholeGrowth() {
    long most = 4 * MIB; // within a sixteenth of the pool
    assertEquals(most, StartCredit.size(SHARE, SHARE, 0, most), "an empty budget");
    assertEquals(most, StartCredit.size(SHARE / 2, SHARE, 0, most), "half of the optimized share free");
  }

  @Test
  void pressureGivesNothing() {
    assertEquals(0, StartCredit.size(SHARE / 4, SHARE, 0, MOST), "a quarter free");
    assertEquals(0, StartCredit.size(10 * MIB, SHARE, 0, MOST));
    assertEquals(0, StartCredit.size(0, SHARE, 0, MOST));
    assertEquals(0, StartCredit.size(-5, SHARE, 0, MOST), "an overcommitted figure");
  }

  @Test
  void betweenItTapersLinearly() {
    assertEquals(2 * MIB, StartCredit.size(SHARE * 3 / 8, SHARE, 0, 4 * MIB), 1024, "halfway between 25% and 50% free");
    long previous = Long.MAX_VALUE;
    for (long free = SHARE / 2; free >= SHARE / 4; free -= MIB) {
      long c = StartCredit.size(free, SHARE, 0, MOST);
      assertTrue(c <= previous, "less free, no more credit: " + free);
      previous = c;
    }
  }

  @Test
  void oneGrantTakesAtMostASixteenthOfWhatThePoolHasLeft() {
    long pool = SHARE / 4; // 96 MiB
    assertEquals(pool / 16, StartCredit.size(SHARE, SHARE, 0, 1024 * MIB), "6 MiB of an empty pool");
    assertEquals((pool - 90 * MIB) / 16, StartCredit.size(SHARE, SHARE, 90 * MIB, MOST), "what is left of the pool, shared");
    assertEquals(0, StartCredit.size(SHARE, SHARE, pool, MOST), "an empty pool gives nothing");
    assertEquals(0, StartCredit.size(SHARE, SHARE, 0, 0), "a window that may not grow gets none");
    assertEquals(MIB, StartCredit.size(SHARE, SHARE, 0, MIB), "never more than the window may grow");
  }

  @Test
  void theBudgetSizesFromItsFreeOptimizedShare() {
    BufferBudget budget = new BufferBudget(512 * MIB); // share 384 MiB, pool 96 MiB
    assertEquals(6 * MIB, budget.startCredit(MOST));
    assertTrue(budget.tryReserve(240 * MIB, true)); // 144 MiB of the share free: 37.5%
    assertEquals(3 * MIB, budget.startCredit(MOST), 1024);
    assertTrue(budget.tryReserve(50 * MIB, true)); // 94 MiB free: below a quarter
    assertEquals(0, budget.startCredit(MOST));
    budget.release(290 * MIB, true);
    assertTrue(budget.tryReserve(500 * MIB, false)); // pass-through flows fill the rest of the budget
    assertEquals(0, budget.startCredit(MOST), "the whole budget's free part counts too");
  }

  /**
   * Many flows admitted and granted start credit in random order, some giving it back, some ending:
   * the start credit outstanding never exceeds the pool nor the reservations the share, and
   * everything comes back.
   */
  @Test
  void grantedCreditNeverExceedsThePoolOrTheBudget() {
    long total = 64 * MIB; // share 48 MiB, pool 12 MiB
    Admission admission = new Admission(100_000, 100_000, total, new SimpleMeterRegistry());
    InetAddress client = InetAddress.getLoopbackAddress();
    Random random = new Random(13);
    List<Admission.Claim> claims = new ArrayList<>();
    long start = 192 * 1024;
    long granted = 0;
    for (int i = 0; i < 5_000; i++) {
      if (!claims.isEmpty() && random.nextInt(3) == 0) {
        Admission.Claim c = claims.get(random.nextInt(claims.size()));
        if (random.nextBoolean()) {
          c.shrink(c.bytes()); // the sender gave back its start credit: down to what was admitted
          assertEquals(start, c.bytes(), "a claim never shrinks below its admission");
        } else {
          claims.remove(c);
          c.release();
        }
      }
      Admission.Claim c = admission.admit(client, start, true);
      if (c.granted()) {
        claims.add(c);
        long credit = c.startCredit(MOST);
        if (credit > 0 && c.grantStart(credit)) {
          granted += credit;
        }
      }
      BufferBudget b = admission.budget();
      assertTrue(b.reserved() <= BufferBudget.optimizedShare(total), "reserved " + b.reserved() + " beyond the optimized share");
      assertTrue(b.startOutstanding() <= StartCredit.pool(BufferBudget.optimizedShare(total)), "start credit " + b.startOutstanding() + " beyond the pool");
    }
    assertTrue(granted > 0, "some start credit was granted");
    for (Admission.Claim c : claims) {
      c.release();
    }
    assertEquals(0, admission.budget().reserved(), "everything given back");
    assertEquals(0, admission.budget().startOutstanding(), "no start credit left outstanding");
  }

  /**
   * Flows that never give their start credit back (idle ones, before their sender returns it) cost
   * the node at most the pool: the flows admitted after them still fit the other three quarters.
   */
  @Test
  void creditHeldCostsAtMostThePool() {
    long total = 64 * MIB; // share 48 MiB, pool 12 MiB
    Admission admission = new Admission(100_000, 100_000, total, new SimpleMeterRegistry());
    InetAddress client = InetAddress.getLoopbackAddress();
    long start = 192 * 1024;
    int admitted = 0;
    for (int i = 0; i < 1_000; i++) {
      Admission.Claim c = admission.admit(client, start, true);
      if (!c.granted()) {
        break;
      }
      admitted++;
      long credit = c.startCredit(MOST);
      assertTrue(credit == 0 || c.grantStart(credit));
    }
    long pool = StartCredit.pool(48 * MIB);
    assertTrue(admission.budget().startOutstanding() <= pool);
    assertTrue(admitted >= (48 * MIB - pool) / start, "only " + admitted + " flows fit");
  }
}
