package io.tcpopt.reduction;

import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of one peer, both directions: what the streams read from and wrote to their LAN legs
 * against what crossed the WAN, and the events of the cache protocol. Thread-safe.
 */
public final class ReductionStats {
  final LongAdder lanBytesOut = new LongAdder();
  final LongAdder wanBytesOut = new LongAdder();
  final LongAdder lanBytesIn = new LongAdder();
  final LongAdder wanBytesIn = new LongAdder();
  final LongAdder chunksOut = new LongAdder();
  final LongAdder referencesOut = new LongAdder();
  final LongAdder referencedBytesOut = new LongAdder();
  final LongAdder compressedSegments = new LongAdder();
  final LongAdder rawSegments = new LongAdder();
  final LongAdder nacksSent = new LongAdder();
  final LongAdder nacksReceived = new LongAdder();
  final LongAdder resuppliedBytes = new LongAdder();
  final LongAdder unavailable = new LongAdder();

  /** A consistent-enough copy of the counters. */
  public record Snapshot(long lanBytesOut, long wanBytesOut, long lanBytesIn, long wanBytesIn, long chunksOut,
      long referencesOut, long referencedBytesOut, long compressedSegments, long rawSegments, long nacksSent,
      long nacksReceived, long resuppliedBytes, long unavailable) {
    /** Fraction of the outgoing LAN bytes that did not cross the WAN (negative when framing costs more). */
    public double reductionOut() {
      return lanBytesOut == 0 ? 0 : 1.0 - (double) wanBytesOut / lanBytesOut;
    }
  }

  public Snapshot snapshot() {
    return new Snapshot(lanBytesOut.sum(), wanBytesOut.sum(), lanBytesIn.sum(), wanBytesIn.sum(), chunksOut.sum(),
        referencesOut.sum(), referencedBytesOut.sum(), compressedSegments.sum(), rawSegments.sum(), nacksSent.sum(),
        nacksReceived.sum(), resuppliedBytes.sum(), unavailable.sum());
  }
}
