package io.tcpopt.common.net;

import java.time.Duration;
import java.util.Objects;

/**
 * How every WAN socket of a node is tuned.
 *
 * @param congestionControl the Linux congestion control module, e.g. {@code bbr}
 * @param sendBufferBytes SO_SNDBUF to request (the kernel reports twice this)
 * @param receiveBufferBytes SO_RCVBUF to request; set before connect so the window scale fits it
 * @param pacingRateBytesPerSecond SO_MAX_PACING_RATE, or 0 for no cap
 */
public record WanSocketSettings(String congestionControl, int sendBufferBytes, int receiveBufferBytes, long pacingRateBytesPerSecond) {
  /** Smallest buffer ever requested, whatever the link: 256 KiB. */
  public static final int MIN_BUFFER = 256 * 1024;
  /** Largest buffer ever requested: 64 MiB. */
  public static final int MAX_BUFFER = 64 * 1024 * 1024;
  /** Both buffers are this many bandwidth-delay products (clamped): see {@link #forLink}. */
  public static final int BDP_MULTIPLE = 8;
  /**
   * The pacing cap of a link with {@code pacing}, as a share of its rate. A link's rate counts
   * whole packets; the kernel paces TCP payload, which is 1448 of a 1500-byte packet with
   * timestamps (96.5%). Capped at the link's own figure, BBR's probes (1.25 × its estimate) ran
   * 3.6% above the link for a round trip in every eight and its restarts' STARTUP longer, a queue
   * at the bottleneck that every byte behind it waits in, a 1 KB echo too (issue 9, experiment
   * 9.3). At 96% of the rate the payload's packets take 99.5% of the link: the link's queue drains
   * and bulk keeps 96% of the rate (the ceiling of its goodput is 96.5%).
   */
  public static final double PACING_SHARE = 0.96;

  public WanSocketSettings {
    Objects.requireNonNull(congestionControl, "congestionControl");
    if (congestionControl.isBlank() || congestionControl.length() > 15 || !congestionControl.matches("[A-Za-z0-9_-]+")) {
      throw new IllegalArgumentException("congestion control must be a kernel module name such as bbr or cubic, got \"" + congestionControl + "\"");
    }
    if (sendBufferBytes <= 0 || receiveBufferBytes <= 0) {
      throw new IllegalArgumentException("socket buffers must be positive, got send " + sendBufferBytes + " receive " + receiveBufferBytes);
    }
    if (pacingRateBytesPerSecond < 0) {
      throw new IllegalArgumentException("pacing rate must be 0 (none) or positive, got " + pacingRateBytesPerSecond);
    }
  }

  /**
   * Settings for a link of {@code bitsPerSecond} and round-trip time {@code rtt}: the send and the
   * receive buffer {@value #BDP_MULTIPLE} times the bandwidth-delay product, clamped to [{@value
   * #MIN_BUFFER}, {@value #MAX_BUFFER}] bytes; pacing capped at {@link #PACING_SHARE} of the link
   * rate when {@code pacing} is set. Loss recovery needs the room on both sides: a byte after a
   * hole stays in the receiver's buffer and in the sender's (unacknowledged, though SACKed) until the hole is filled, and Linux
   * counts each buffer in kernel memory per packet, not in payload bytes. With random loss a hole
   * lasts two round trips (the loss seen a round trip later, the retransmission half a round trip
   * after that, its acknowledgement another half) and one more for every retransmission lost too;
   * at 2% loss and 300 ms some retransmission is lost in almost every round trip, so the sender
   * needs 3.5-4.5 × the BDP unacknowledged to keep sending through them (issue 9). The receive
   * buffer also fixes the window scale at the SYN: Linux advertises about half of it, and 4 × a
   * 250 ms BDP (31.25 MB asked) gave a scale of 9, a window of at most 32 MiB, which the 300 ms /
   * 2% row hit in every hole. The memory is taken only while bytes are held.
   */
  public static WanSocketSettings forLink(long bitsPerSecond, Duration rtt, boolean pacing, String congestionControl) {
    if (bitsPerSecond <= 0) {
      throw new IllegalArgumentException("link bandwidth must be positive, got " + bitsPerSecond + " bit/s");
    }
    if (rtt.isNegative()) {
      throw new IllegalArgumentException("link rtt must not be negative, got " + rtt);
    }
    long bdp = bandwidthDelayProduct(bitsPerSecond, rtt);
    return new WanSocketSettings(congestionControl, clampBuffer(BDP_MULTIPLE * bdp), clampBuffer(BDP_MULTIPLE * bdp), pacing ? (long) (bitsPerSecond / 8 * PACING_SHARE) : 0);
  }

  private static int clampBuffer(long bytes) {
    return (int) Math.max(MIN_BUFFER, Math.min(MAX_BUFFER, bytes));
  }

  /** Bytes in flight on a full link: bandwidth × rtt, saturating instead of overflowing. */
  public static long bandwidthDelayProduct(long bitsPerSecond, Duration rtt) {
    double bytes = bitsPerSecond / 8.0 * (rtt.toNanos() / 1e9);
    return bytes >= Long.MAX_VALUE / 4 ? Long.MAX_VALUE / 4 : (long) Math.ceil(bytes);
  }
}
