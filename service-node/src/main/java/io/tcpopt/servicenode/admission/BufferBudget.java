package io.tcpopt.servicenode.admission;

/**
 * The node-wide budget for buffered flow bytes. Every admitted flow reserves the most it can make
 * the node buffer — its worst case, not its current use — and gives it back when it ends, so the
 * sum of what flows can hold never exceeds the budget, however slow their readers:
 *
 * <ul>
 *   <li>an optimized flow: its stream receive window (what the peer may send before the leg takes
 *       it) plus one leg write buffer each way ({@code lan.proxy-buffer-high});
 *   <li>a pass-through flow: one leg write buffer each way.
 * </ul>
 *
 * Optimized flows may fill {@value #OPTIMIZED_SHARE} of the budget; the rest is kept for
 * pass-through flows, so that a node whose optimized flows filled their share still passes new
 * flows through (fail open) rather than refusing them. Thread-safe (a short lock per flow
 * admitted and ended), never overshoots.
 */
public final class BufferBudget {
  /** The share of the budget optimized flows may fill. */
  public static final double OPTIMIZED_SHARE = 0.75;

  private final long budget;
  private long reserved;
  private long reservedOptimized;

  public BufferBudget(long budget) {
    this.budget = budget;
  }

  /** What an optimized flow reserves. */
  public static long optimizedFlowBytes(int streamWindow, int bufferHigh) {
    return (long) streamWindow + 2L * bufferHigh;
  }

  /** What a pass-through flow reserves. */
  public static long passThroughFlowBytes(int bufferHigh) {
    return 2L * bufferHigh;
  }

  /** What optimized flows may reserve in all. */
  public static long optimizedShare(long budget) {
    return (long) (budget * OPTIMIZED_SHARE);
  }

  /**
   * Reserves {@code bytes} if they fit in the budget (and, for an optimized flow, in the optimized
   * flows' share); false (nothing reserved) when they do not.
   */
  synchronized boolean tryReserve(long bytes, boolean optimized) {
    if (reserved + bytes > budget || optimized && reservedOptimized + bytes > optimizedShare(budget)) {
      return false;
    }
    reserved += bytes;
    if (optimized) {
      reservedOptimized += bytes;
    }
    return true;
  }

  synchronized void release(long bytes, boolean optimized) {
    reserved -= bytes;
    if (optimized) {
      reservedOptimized -= bytes;
    }
  }

  public long budget() {
    return budget;
  }

  public synchronized long reserved() {
    return reserved;
  }
}
