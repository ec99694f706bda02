package io.tcpopt.servicenode.admission;

/**
 * The node-wide budget for buffered flow bytes. Every admitted flow reserves the most it can make
 * the node buffer — the worst case of what it was granted, not its current use — and gives it back
 * when it ends, so the sum of what flows can hold never exceeds the budget, however slow their
 * readers:
 *
 * <ul>
 *   <li>an optimized flow: its stream's receive window (what the peer may send before the leg takes
 *       it; the bytes in the leg's write buffer are inside it, they are granted back only once the
 *       socket took them), its send queue's bound (the peer's window for the stream, at most the
 *       queue's limit) and one read of its leg ({@value #LEG_READ_BYTES}). Windows start small and
 *       grow with the flow: each growth is reserved here first ({@link Admission.Claim#grow}), and a
 *       window the budget cannot grow stays as it is;
 *   <li>a pass-through flow: one leg write buffer each way ({@code lan.proxy-buffer-high}).
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
  private long startOutstanding;

  public BufferBudget(long budget) {
    this.budget = budget;
  }

  /** What one read of a leg may bring beyond the stream's credit (Netty's adaptive reads stop at 64 KiB). */
  public static final int LEG_READ_BYTES = 64 * 1024;

  /**
   * What an optimized flow reserves when admitted: its stream's windows at their start
   * (receive window and send queue bound), and one leg read.
   */
  public static long optimizedFlowBytes(long streamStartBytes) {
    return streamStartBytes + LEG_READ_BYTES;
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

  /**
   * The credit a new optimized stream may be granted at its start beyond its initial window, at most
   * {@code most}: sized from the free part of the optimized share and the start credit outstanding
   * ({@link StartCredit}). Not reserved: {@link #tryReserveStart} does, and may still refuse.
   */
  public synchronized long startCredit(long most) {
    return StartCredit.size(freeOptimized(), optimizedShare(budget), startOutstanding, most);
  }

  private long freeOptimized() {
    return Math.min(optimizedShare(budget) - reservedOptimized, budget - reserved);
  }

  /** Reserves {@code bytes} of start credit for an optimized flow, if they fit in the budget and in the start-credit pool. */
  synchronized boolean tryReserveStart(long bytes) {
    if (startOutstanding + bytes > StartCredit.pool(optimizedShare(budget)) || !tryReserve(bytes, true)) {
      return false;
    }
    startOutstanding += bytes;
    return true;
  }

  /** Start credit granted and neither given back nor ended with its flow. */
  public synchronized long startOutstanding() {
    return startOutstanding;
  }

  /** Releases {@code bytes}, {@code start} of them start credit. */
  synchronized void release(long bytes, boolean optimized, long start) {
    startOutstanding -= start;
    release(bytes, optimized);
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
