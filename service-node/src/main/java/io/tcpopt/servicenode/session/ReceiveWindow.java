package io.tcpopt.servicenode.session;

import io.netty.util.concurrent.Ticker;
import java.util.concurrent.TimeUnit;

/**
 * The receive side of one stream's flow control: the window the peer may fill, the credit it has
 * left, the bytes written to the local leg and not yet granted back, and the window's auto-tuning.
 *
 * <p>A window starts at the HELLO's {@code initial-stream-window} and grows with the flow, like
 * HTTP/2 and QUIC receivers do: when the leg took a whole window's worth of bytes within
 * {@link #growthInterval four round trips} of the WAN connection (at least {@value
 * #MIN_GROWTH_INTERVAL_MILLIS} ms), the window was what held the sender back, and it grows to
 * {@value #GROWTH_FACTOR} times its size, up to the configured maximum and only as far as the
 * stream's {@link StreamBudget} lets it. That rate is judged on every {@link #JUDGED_PARTS quarter}
 * of the window (a quarter within one of the four round trips), so a new stream's window grows
 * within a round trip of its first bytes instead of after its whole start credit. A flow whose
 * leg reads slowly, or whose sender has little to send, never fills a window that fast and keeps
 * its small one: an idle flow costs its initial window, a bulk flow reaches the full window within
 * a few round trips. The growth goes to the peer as a WINDOW_UPDATE with the GROW flag (it
 * acknowledges no bytes; docs/wire-format.md, section 7).
 *
 * <p>A new stream may be granted more than its initial window at once ({@link #grow} right after
 * the OPEN, the start credit sized by the node's buffer budget), so that its first response does not
 * wait for the growth; and the sender gives back credit it leaves unused for a while ({@link
 * #giveBack}), so that an idle flow holds no more than its initial window.
 *
 * <p>Confined to the connection's event loop.
 */
final class ReceiveWindow {
  /** The growth interval's floor: a loopback or LAN round trip is shorter than one scheduling delay. */
  static final long MIN_GROWTH_INTERVAL_MILLIS = 20;
  /** A window the sender filled within the growth interval grows to this many times its size. */
  static final int GROWTH_FACTOR = 4;
  /**
   * The growth interval in WAN round trips. A window-bound sender fills one window per credit cycle:
   * a round trip on a clean path, but a hole (a lost packet) holds every byte behind it at the
   * receiving node for a round trip or two more before the leg takes them, and at 300 ms / 2% loss
   * there is one in every round trip. With two round trips a window-bound stream's window was never
   * judged full in time there: the four streams of a 400 MB transfer sat at their start credit (~17
   * MB unacknowledged, the DC's WAN socket application-limited with the LAN's bytes waiting) for its
   * first 3-5 s (issue 9, docs/benchmarks.md, lossy9d). A flow the leg or the sender holds back
   * still keeps its small window unless it moves a window in four round trips.
   */
  static final int GROWTH_INTERVAL_RTTS = 4;
  /**
   * The window's rate is judged on every this-many-th part of it (against as small a part of the
   * interval), the batch in which it is granted back. Judged on the whole window, a new stream's
   * start credit (~6 MB) was judged only once the leg had taken all of it: at 300 ms and 1% loss,
   * with every byte behind the first hole, ~1.1 s after the first byte, while the DC's four streams
   * had run out of credit at ~17 MB unacknowledged and sent at 42-158 Mbit/s for their first 1.3 s.
   * Judged on quarters, the DC sent 219-234 Mbit/s in the first 2 s of the 300 ms lossy rows against
   * 163-234 before, and 300 ms / 1% moved 228.2-228.4 Mbit/s against 218.8-225.0 (issue 9,
   * docs/benchmarks.md, lossy9f).
   */
  static final int JUDGED_PARTS = 4;

  private final int initial;
  private final int max;
  private final Ticker ticker;
  private int size;
  private int credit;
  private int unacknowledged;
  /** When the leg took the first byte of the current measurement, and how many it took since. */
  private long epochStartNanos;
  private long epochBytes;

  /**
   * A window of {@code size} bytes (growing up to {@code max}), of which {@code credit} are left to
   * the peer; {@code ticker}: the event loop's clock.
   */
  ReceiveWindow(int size, int max, int credit, Ticker ticker) {
    this.ticker = ticker;
    this.initial = size;
    this.size = size;
    this.max = Math.max(size, max);
    this.credit = credit;
  }

  int size() {
    return size;
  }

  /** How much the window may still grow (to the configured maximum). */
  int room() {
    return max - size;
  }

  int credit() {
    return credit;
  }

  /** Takes {@code n} received bytes from the credit; false (nothing taken) when they are beyond it. */
  boolean receive(long n) {
    if (n > credit) {
      return false;
    }
    credit -= (int) n;
    return true;
  }

  /** {@code n} bytes were written to the local leg: they are granted back with the next grant. */
  void written(int n) {
    unacknowledged += n;
    if (size < max && n > 0) {
      if (epochBytes == 0) {
        epochStartNanos = ticker.nanoTime();
      }
      epochBytes += n;
    }
  }

  /** Bytes written and not granted yet. */
  int unacknowledged() {
    return unacknowledged;
  }

  /** Whether enough was written to grant it now (a quarter of the window, batched). */
  boolean grantDue() {
    return unacknowledged >= Math.max(1, size / 4);
  }

  /** Every byte received so far was written to the leg (written ones may wait for their grant). */
  boolean allWritten() {
    return credit + unacknowledged == size;
  }

  /** Grants back everything written: returns the increment of the acknowledging WINDOW_UPDATE. */
  int takeGrant() {
    int n = unacknowledged;
    credit += n;
    unacknowledged = 0;
    return n;
  }

  /**
   * How much the window should grow now (0 for not), judged once a {@link #JUDGED_PARTS part} of the
   * window was written since the last judgement: the window grows when that took at most the same
   * part of the growth interval.
   *
   * @param rttNanos the WAN connection's round trip, or negative when not known yet
   */
  int growth(long rttNanos) {
    if (size >= max || epochBytes < size / JUDGED_PARTS) {
      return 0;
    }
    boolean fast = ticker.nanoTime() - epochStartNanos <= growthInterval(rttNanos) / JUDGED_PARTS;
    epochBytes = 0;
    return fast ? (int) Math.min((long) (GROWTH_FACTOR - 1) * size, (long) max - size) : 0;
  }

  /** {@link #GROWTH_INTERVAL_RTTS} round trips, at least {@value #MIN_GROWTH_INTERVAL_MILLIS} ms. */
  static long growthInterval(long rttNanos) {
    return Math.max(TimeUnit.MILLISECONDS.toNanos(MIN_GROWTH_INTERVAL_MILLIS), GROWTH_INTERVAL_RTTS * Math.max(0, rttNanos));
  }

  /** The window grew by {@code bytes} (reserved and about to be granted with the GROW flag). */
  void grow(int bytes) {
    size += bytes;
    credit += bytes;
  }

  /**
   * The sender gave back {@code bytes} of credit it left unused (flag RETURN): the window shrinks by
   * them. False (nothing changed) when they are more than the credit it has left or would take the
   * window below its initial size: the peer broke the protocol.
   */
  boolean giveBack(int bytes) {
    if (bytes <= 0 || bytes > credit || size - bytes < initial) {
      return false;
    }
    size -= bytes;
    credit -= bytes;
    epochBytes = 0;
    return true;
  }
}
