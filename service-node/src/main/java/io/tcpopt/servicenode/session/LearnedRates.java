package io.tcpopt.servicenode.session;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The pacing cap a node last learned ({@link LearnedPacing}) on a connection to each peer, so that
 * the peer's next connection (a re-dial, a replacement, another member of its group) starts with
 * it instead of with an uncapped first STARTUP. One per node ({@link SessionSettings#learnedRates}),
 * so that nodes sharing a process (tests) never meet; thread-safe.
 *
 * <p>Why (issue 9, tcpopt-nolink at 300 ms / 2% loss, a connection re-dialled after the RTT grew):
 * BBR's first STARTUP paces at 2.89 × its estimate and leaves only after three round trips without
 * growth that were not application-limited. The new connection's STARTUP ran uncapped for 30 s of
 * transfers (pacing up to 1.8 Gbit/s into a 250 Mbit/s link with a 1,000-packet queue) and
 * retransmitted 190,000 packets; the 400 MB transfer ran at 132.6 Mbit/s against 177.3 with the
 * link block's cap. The previous connection to the same peer had learned 1.1 × the path's rate.
 *
 * <p>A cap older than {@link #MAX_AGE_NANOS} is forgotten: the path may have changed since. The
 * trade-off: a path that became faster meanwhile is found in steps of a tenth per probe cycle, as
 * with any learned cap.
 */
public final class LearnedRates {
  /** How long a learned cap is carried to a peer's next connection. */
  static final long MAX_AGE_NANOS = TimeUnit.MINUTES.toNanos(10);

  private record Rate(long cap, long atNanos) {}

  private final Map<String, Rate> rates = new ConcurrentHashMap<>();

  LearnedRates() {}

  /** This node learned a pacing cap of {@code cap} bytes/s to peer {@code peer}. */
  void remember(String peer, long cap, long nowNanos) {
    if (peer != null && cap > 0) {
      rates.put(peer, new Rate(cap, nowNanos));
    }
  }

  /** The cap last learned to {@code peer}, if at most {@link #MAX_AGE_NANOS} old; else 0. */
  long recall(String peer, long nowNanos) {
    Rate r = peer == null ? null : rates.get(peer);
    return r == null || nowNanos - r.atNanos() > MAX_AGE_NANOS ? 0 : r.cap();
  }
}
