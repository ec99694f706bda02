package io.tcpopt.servicenode.session;

import io.netty.channel.Channel;
import io.tcpopt.common.net.SocketTuning;
import java.util.OptionalInt;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A pacing cap for a WAN socket whose configuration sets none (no {@code link} block, or {@code
 * pacing: false}): {@link #HEADROOM} times the largest bandwidth estimate BBR reached outside
 * STARTUP on this connection, raised as that estimate grows.
 *
 * <p>Why (issue 9, tcpopt-nolink at 300 ms / 0.5% loss, 250 Mbit/s, a 1,000-packet bottleneck
 * queue): kernel BBR (v1) probes at 1.25 times its estimate for a round trip every eight, which at
 * 300 ms puts a quarter of the bandwidth-delay product (1,600 packets) into a queue that holds
 * 1,000; and STARTUP after a {@link CongestionRestart} paces at 2.89 times. Without a cap the DC
 * retransmitted 100,000 packets in one 400 MB transfer, its estimate collapsed twice and the
 * transfer ran at 135 Mbit/s; with the link block's cap (the link rate, about 1.035 times BBR's
 * estimate) 1,500, about the random loss alone, at 196 Mbit/s. A cap a tenth above the rate the path has delivered keeps a probe's queue to a tenth
 * of the BDP and a restart's STARTUP from overshooting, and still lets BBR find more: each probe
 * can deliver up to the cap, so the estimate, and with it the cap, grows by up to 10% every eight
 * round trips. The trade-off: after the path gets faster (or a competing flow leaves), BBR takes
 * the new rate in steps of 10% per probe cycle instead of 25% (at 100 ms, 250 → 600 Mbit/s in
 * about 7 s instead of 3). A configured cap (the link block with {@code pacing: true}) is left as
 * it is.
 *
 * <p>While BBR is in STARTUP again on a connection that learned a rate (a {@link CongestionRestart}:
 * a refresh before PROBE_RTT, or after a collapse) the cap is {@link #STARTUP_SHARE} of that rate
 * instead. STARTUP paces at 2.89 times its estimate, so it runs at the cap for its whole length
 * (three round trips without growth that were not application-limited, often more); at a tenth
 * above the rate that filled the 1,000-packet bottleneck queue within half a second at 300 ms and
 * dropped packets in bursts after every refresh (issue 9, tcpopt-nolink at 300 ms, 0.5% and 2%
 * loss: RTT up to 348 ms instead of 301, 480-970 packets marked lost per ss sample instead of 20-140;
 * with the link block's cap, 96% of the rate, the RTT stayed within 7 ms of 300). A refresh restarts BBR on the same path, so STARTUP has
 * nothing to find above the rate the connection already delivered.
 *
 * <p>A peer's next connection starts with the cap learned here ({@link LearnedRates}). Not covered: a
 * node's first connection to a peer, whose first STARTUP has nothing to learn from yet. BBR leaves
 * STARTUP only after three round trips without growth that were not application-limited; a node
 * short of CPU marks many of them so, and a new connection on a lossy 300 ms path was seen to stay
 * in STARTUP (uncapped, 2.89 times its estimate) for more than 20 s, retransmitting 80,000 packets
 * in one transfer (issue 9, docs/benchmarks.md).
 *
 * <p>Confined to the connection's event loop.
 */
final class LearnedPacing {
  private static final Logger log = LoggerFactory.getLogger(LearnedPacing.class);

  /** The cap is the largest estimate times this. */
  static final double HEADROOM = 1.1;
  /** BBR's largest pacing gain outside STARTUP (1.25 in units of 256): estimates while the gain is higher are still growing. */
  static final int MAX_STEADY_GAIN = 320;
  /**
   * The cap while BBR is back in STARTUP, as a share of the largest estimate: below the rate the path
   * delivered (BBR's estimate is a maximum of delivery-rate samples and reads up to 1% above the
   * testbed's payload ceiling, 243 against 241.3 Mbit/s).
   */
  static final double STARTUP_SHARE = 0.98;
  /** The cap is moved only when it changes by more than this fraction. */
  static final double MIN_CHANGE = 0.01;

  private long largest;
  private long cap;
  /** Where each cap applied is recorded for the peer's next connection, or null. */
  private final LongConsumer remember;

  LearnedPacing() {
    this(0, null);
  }

  /**
   * A learner whose socket starts capped at {@code startCap} (0: uncapped until BBR leaves STARTUP),
   * the cap a previous connection to the same peer learned ({@link LearnedRates}); every cap it
   * applies goes to {@code remember} (may be null). The first estimate outside STARTUP replaces the
   * carried cap, up or down, like any estimate that moves it by more than {@link #MIN_CHANGE}.
   */
  LearnedPacing(long startCap, LongConsumer remember) {
    this.cap = Math.max(0, startCap);
    this.remember = remember;
  }

  /** The cap applied, bytes per second; 0 before the first. */
  long cap() {
    return cap;
  }

  /**
   * One observation of BBR's estimate (bytes per second) and pacing gain (units of 256). Returns
   * the cap to set now, or 0 when it stays as it is.
   */
  long observe(long bandwidth, int pacingGain) {
    if (pacingGain <= 0) {
      return 0;
    }
    if (pacingGain > MAX_STEADY_GAIN) {
      // STARTUP: the carried cap (or none) until this connection learned a rate, then just below it.
      return largest > 0 ? move((long) (largest * STARTUP_SHARE), false) : 0;
    }
    if (bandwidth <= 0) {
      return 0;
    }
    largest = Math.max(largest, bandwidth);
    return move((long) (largest * HEADROOM), true);
  }

  /** Sets the cap to {@code wanted} unless that is within {@link #MIN_CHANGE}; {@code remembered}: for the peer's next connection. */
  private long move(long wanted, boolean remembered) {
    if (cap > 0 && Math.abs(wanted - cap) <= cap * MIN_CHANGE) {
      return 0;
    }
    cap = wanted;
    if (remembered && remember != null) {
      remember.accept(cap);
    }
    return cap;
  }

  /**
   * A learner for {@code ch} (a connection to peer {@code peer}) if it runs BBR with no pacing cap of
   * its own, else null. The socket starts with the cap the node last learned to that peer ({@code
   * rates}), and the caps learned here are remembered there for the peer's next connection.
   */
  static LearnedPacing forChannel(Channel ch, LearnedRates rates, String peer) {
    if (SocketTuning.maxPacingRate(ch) != 0) {
      return null;
    }
    long carried = rates.recall(peer, System.nanoTime());
    if (carried > 0 && SocketTuning.setMaxPacingRate(ch, carried)) {
      log.info("WAN socket {}: starts with the pacing cap learned on an earlier connection to {}: {} Mbit/s", ch, peer, megabits(carried));
    } else {
      carried = 0;
    }
    return new LearnedPacing(carried, cap -> rates.remember(peer, cap, System.nanoTime()));
  }

  /** Reads the socket's estimate and gain and moves its cap when {@link #observe} says so. */
  void check(Channel ch, long bandwidth) {
    OptionalInt gain = SocketTuning.bbrPacingGain(ch);
    if (gain.isEmpty()) {
      return;
    }
    long before = cap;
    long next = observe(bandwidth, gain.getAsInt());
    if (next > 0 && SocketTuning.setMaxPacingRate(ch, next)) {
      log.debug("WAN socket {}: learned pacing cap {} -> {} Mbit/s", ch, megabits(before), megabits(next));
    }
  }

  private static String megabits(long bytesPerSecond) {
    return String.format("%.1f", bytesPerSecond * 8 / 1e6);
  }
}
