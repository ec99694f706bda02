package io.tcpopt.servicenode.memory;

import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives memory back once a burst of flows is over. Thousands of flows make the JVM grow its heap
 * and its C heap; when they close, their objects are garbage in old regions that G1 reclaims only
 * in mixed collections, which a quiet node never makes, and its periodic concurrent cycle marks
 * them without freeing the regions: the node kept 20-40% more resident memory than before the
 * burst (docs/benchmarks.md, issue 13). So once the active flows fell by at least {@value
 * #MIN_DROP} and to at most half of their peak, and did not rise again for {@value #QUIET_MILLIS}
 * ms, the node asks for one full collection ({@code System.gc()}: G1 compacts and shrinks the heap
 * to {@code -XX:MaxHeapFreeRatio}) and trims the C heap ({@code System.trim_native_heap}, where
 * the JVM has it), then waits for the next burst.
 *
 * <p>The trade-off: one stop-the-world pause after each burst, while the node is quieter than it
 * was (tens of milliseconds for a node's live set of tens of MiB), instead of memory kept for ever
 * or a full collection every few seconds of quiet. {@code -XX:+DisableExplicitGC} turns the
 * collection off. Checked every {@value #CHECK_MILLIS} ms on one scheduled task.
 */
public final class IdleMemoryReturn {
  private static final Logger log = LoggerFactory.getLogger(IdleMemoryReturn.class);
  static final int MIN_DROP = 1_000;
  static final long CHECK_MILLIS = 5_000;
  static final long QUIET_MILLIS = 15_000;

  private final String node;
  private final IntSupplier activeFlows;
  private final LongSupplier clockNanos;
  private final Runnable giveBack;
  private int peak;
  private int lastActive;
  /** When the flows fell low enough, or -1. */
  private long lowSinceNanos = -1;

  IdleMemoryReturn(String node, IntSupplier activeFlows, LongSupplier clockNanos, Runnable giveBack) {
    this.node = node;
    this.activeFlows = activeFlows;
    this.clockNanos = clockNanos;
    this.giveBack = giveBack;
  }

  /** The check for node {@code node} whose active flows {@code activeFlows} counts; {@link #check} it every {@value #CHECK_MILLIS} ms. */
  public static IdleMemoryReturn forNode(String node, IntSupplier activeFlows) {
    return new IdleMemoryReturn(node, activeFlows, System::nanoTime, null);
  }

  public static long checkMillis() {
    return CHECK_MILLIS;
  }

  /** One check (a single thread calls it): gives memory back when a burst has been over for long enough. */
  public void check() {
    int now = activeFlows.getAsInt();
    boolean rose = now > lastActive;
    lastActive = now;
    if (now >= peak) {
      peak = now;
      lowSinceNanos = -1;
      return;
    }
    if (peak - now < MIN_DROP || now > peak / 2 || rose) {
      lowSinceNanos = -1; // not over, or a new burst begins
      return;
    }
    long t = clockNanos.getAsLong();
    if (lowSinceNanos < 0) {
      lowSinceNanos = t;
      return;
    }
    if (t - lowSinceNanos >= TimeUnit.MILLISECONDS.toNanos(QUIET_MILLIS)) {
      int before = peak;
      peak = now;
      lowSinceNanos = -1;
      if (giveBack != null) {
        giveBack.run();
      } else {
        giveBack(before, now);
      }
    }
  }

  private void giveBack(int peakFlows, int nowFlows) {
    long start = System.nanoTime();
    System.gc();
    long gcMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    boolean trimmed = trimNativeHeap();
    log.info("node {}: {} of {} flows closed since the peak; returned memory (full collection {} ms{})", node, peakFlows - nowFlows, peakFlows,
        gcMillis, trimmed ? ", C heap trimmed" : "");
  }

  /** {@code jcmd PID System.trim_native_heap}, in process; false where the JVM has no such command. */
  private static boolean trimNativeHeap() {
    try {
      ManagementFactory.getPlatformMBeanServer().invoke(new ObjectName("com.sun.management:type=DiagnosticCommand"), "systemTrimNativeHeap",
          new Object[] {new String[0]}, new String[] {String[].class.getName()});
      return true;
    } catch (Exception | LinkageError e) {
      return false;
    }
  }
}
