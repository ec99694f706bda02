package io.tcpopt.servicenode.admission;

/**
 * How much credit a new stream gets at its start beyond the HELLO's {@code initial-stream-window}:
 * large while the node's buffer budget has plenty free, nothing under pressure. The first request
 * of a flow then runs at full speed (its response needs a bandwidth-delay product of credit from the
 * first round trip, which a 64 KiB window only reaches after several round trips of growth), while
 * a node holding thousands of flows grants each only its initial window.
 *
 * <p>The rule, on the optimized flows' share of the budget ({@link BufferBudget#optimizedShare}):
 *
 * <ul>
 *   <li>start credit outstanding at the node (granted and neither given back nor ended) is at most
 *       a {@value #POOL_FRACTION}th of the share (the <em>pool</em>), and one grant takes at most a
 *       {@value #OF_POOL}th of what the pool has left: a burst of new flows shares it, the first
 *       few do not take it all, and a node whose flows hold their credit still admits as many new
 *       flows as without it, as long as their own starts fill less than the rest of the share;
 *   <li>while at least {@value #PLENTY_PERCENT}% of the share is free a stream gets that much; between
 *       that and {@value #PRESSURE_PERCENT}% free it tapers linearly to nothing; below, nothing.
 * </ul>
 *
 * Whatever is granted is reserved in the budget first ({@link BufferBudget#tryReserveStart}), so
 * granted credit never exceeds the budget; the sender gives back what it leaves unused (WINDOW_UPDATE
 * with the RETURN flag, docs/wire-format.md section 7), and a flow's end releases the rest.
 */
public final class StartCredit {
  /** The pool of start credit is this fraction of the optimized share. */
  static final int POOL_FRACTION = 4;
  /** One grant takes at most this fraction of what the pool has left. */
  static final int OF_POOL = 16;
  /** Free share (in percent of the optimized share) from which a new stream gets its whole start credit. */
  static final int PLENTY_PERCENT = 50;
  /** Free share below which a new stream gets none. */
  static final int PRESSURE_PERCENT = 25;

  private StartCredit() {}

  /** The pool: the most start credit a node has outstanding with an optimized share of {@code share}. */
  static long pool(long share) {
    return share / POOL_FRACTION;
  }

  /**
   * The start credit for a stream that may grow by {@code most} bytes, when {@code free} of the
   * optimized flows' {@code share} is not reserved and {@code outstanding} start credit is held.
   */
  public static long size(long free, long share, long outstanding, long most) {
    if (most <= 0 || share <= 0 || free <= 0) {
      return 0;
    }
    long plenty = share * PLENTY_PERCENT / 100;
    long pressure = share * PRESSURE_PERCENT / 100;
    long grant = Math.min(most, Math.max(0, pool(share) - outstanding) / OF_POOL);
    if (free <= pressure) {
      return 0;
    } else if (free < plenty) {
      grant = (long) (grant * ((double) (free - pressure) / (plenty - pressure)));
    }
    return Math.max(0, Math.min(grant, free));
  }
}
