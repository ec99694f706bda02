package io.tcpopt.servicenode.session;

import java.util.concurrent.TimeUnit;

/**
 * How many bytes one stream may still send on its pool's express connection ({@link
 * ConnectionGroup#express}): a token bucket of {@link #BURST} bytes refilled at {@link #RATE} bytes
 * a second. A request/response stream (issue 9, 9.3: 1 KB every 50 ms, 20 KB/s) never runs it dry;
 * a bulk stream whose queue happens to drain to a small frame spends its burst at once and then
 * gets a trickle at most, so the express connection never carries bulk enough to queue in its
 * socket, nor gives one bulk stream more than its share: at 256 KiB/s the streams of {@code
 * ExpressWanSchedulingTest} (four at 1.5 MB/s) that drained now and then got 2 MB more than the
 * others in 8 s (10.5% off the mean); at 32 KiB/s that is at most 2%. Confined to the stream's
 * event loop.
 */
final class InteractiveAllowance {
  static final long BURST = 16 * 1024;
  /** Bytes a second: 256 kbit/s per stream. */
  static final long RATE = 32 * 1024;

  private long available = BURST;
  private long refilledAt = Long.MIN_VALUE;

  /** Whether {@code bytes} may go on the express connection at {@code nowNanos}. */
  boolean allows(long bytes, long nowNanos) {
    if (refilledAt == Long.MIN_VALUE) {
      refilledAt = nowNanos;
    }
    long elapsed = nowNanos - refilledAt;
    if (elapsed > 0) {
      available = Math.min(BURST, available + elapsed * RATE / TimeUnit.SECONDS.toNanos(1));
      refilledAt = nowNanos;
    }
    return bytes <= available;
  }

  /** {@code bytes} went on the express connection. */
  void spend(long bytes) {
    available -= bytes;
  }
}
