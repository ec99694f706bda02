package io.tcpopt.servicenode.session;

import io.netty.channel.Channel;
import io.netty.channel.epoll.EpollChannelConfig;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.util.concurrent.ScheduledFuture;
import io.tcpopt.common.net.SocketTuning;
import io.tcpopt.common.net.TcpInfoSnapshot;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sizes the kernel's queue of unsent bytes (TCP_NOTSENT_LOWAT) of one WAN socket: as small as the
 * node can keep fed. Bytes in that queue are sent in order whatever stream they belong to, so a 1 KB
 * request written now waits behind all of them; bytes the kernel refuses stay in the node, where
 * the {@link StreamScheduler} puts the request first. But the queue is also the slack of an event
 * loop that wakes late: at 250 Mbit/s, 128 KiB lasts 4 ms, and a node starved of CPU left its WAN
 * socket idle for part of every round trip (issue 9: bulk at 60% of the link with 128 KiB on a
 * loaded testbed, full rate with 2 MB).
 *
 * <p>So the limit adapts, starting at {@link #FLOOR}. Every {@link #CHECK_MILLIS} ms the socket's
 * TCP_INFO is read. When the node held bytes the kernel refused ({@code backlogged}) for longer
 * than two round trips, yet the kernel's last delivery-rate sample says the sender was
 * application-limited or the kernel has nothing unsent, the kernel ran dry while the node held bytes for it: the event loop was
 * late, and the limit doubles (up to the ceiling the socket tuning set, a thirty-second of the send
 * buffer, a quarter of the BDP; with a pacing cap at most {@link #CEILING_MILLIS} at the cap).
 * After a second of backlog without that, it halves again, down to the floor. On a node
 * that keeps up the limit stays at the floor; on a starved one it grows until bulk is no longer
 * held back, and the interactive latency is what the starvation allows. A congestion window at its
 * minimum (BBR's PROBE_RTT, which marks its own samples application-limited) says nothing and is
 * skipped.
 *
 * <p>Confined to the connection's event loop. Does nothing off the native epoll transport.
 */
final class UnsentLimit {
  private static final Logger log = LoggerFactory.getLogger(UnsentLimit.class);

  /** The smallest limit, and the first: 4 ms at 250 Mbit/s. */
  static final long FLOOR = 128 * 1024;
  static final long CHECK_MILLIS = 50;
  /** A limit unchanged and never found too small for this long is halved. */
  static final long SHRINK_AFTER_NANOS = TimeUnit.SECONDS.toNanos(1);
  /** BBR's congestion window in PROBE_RTT. */
  private static final long MIN_CWND_SEGMENTS = 4;

  /**
   * With a pacing cap, the limit grows to at most this many milliseconds of bytes at the cap: 600 KB
   * at 240 Mbit/s instead of a quarter of the BDP (1.95 MB with the testbed's 250 ms buffers). An echo
   * written behind a full queue waits that long (issue 9, 9.3: unsent p90 912 → 529 KB, echo p99
   * 208.7 → 164.9 ms, bulk unchanged on a node at load 5-8; 10 ms looked better still under load
   * 13-15 but leaves a late event loop half the slack on long lossy paths).
   */
  static final long CEILING_MILLIS = 20;

  private final long floor;
  private final long ceiling;
  private long limit;
  private long backloggedSince = -1;
  private long lastChange;
  private long lastStarved;

  /** {@code ceiling}: the most the limit may grow to; the floor is {@link #FLOOR} or the ceiling if smaller. */
  UnsentLimit(long ceiling, long nowNanos) {
    this.ceiling = Math.max(1, ceiling);
    this.floor = Math.min(FLOOR, this.ceiling);
    this.limit = floor;
    this.lastChange = nowNanos;
    this.lastStarved = nowNanos;
  }

  /**
   * The ceiling of a socket whose tuning allows {@code ceiling} bytes and paces at most at {@code
   * capBytesPerSecond} (0: no cap): {@link #CEILING_MILLIS} at the cap, not below {@link #FLOOR}.
   */
  static long ceilingAtPacingCap(long ceiling, long capBytesPerSecond) {
    if (capBytesPerSecond <= 0) {
      return ceiling;
    }
    return Math.min(ceiling, Math.max(FLOOR, capBytesPerSecond * CEILING_MILLIS / 1000));
  }

  long limit() {
    return limit;
  }

  /**
   * One check: whether the node holds bytes the kernel did not take, and the socket's state.
   * Returns the limit to apply (the same one when nothing changes).
   */
  long observe(long nowNanos, boolean backlogged, boolean appLimited, long cwndSegments, long srttMicros) {
    if (!backlogged) {
      backloggedSince = -1;
      return limit;
    }
    if (backloggedSince < 0) {
      backloggedSince = nowNanos;
      return limit;
    }
    // The last sample describes bytes sent about a round trip ago: count it only once those were
    // sent while the node was already holding bytes back, and once the last change took effect.
    long settle = 2 * TimeUnit.MICROSECONDS.toNanos(Math.max(0, srttMicros)) + TimeUnit.MILLISECONDS.toNanos(CHECK_MILLIS);
    if (nowNanos - backloggedSince < settle || cwndSegments <= MIN_CWND_SEGMENTS) {
      return limit;
    }
    if (appLimited) {
      lastStarved = nowNanos;
      if (nowNanos - lastChange >= settle && limit < ceiling) {
        limit = Math.min(ceiling, limit * 2);
        lastChange = nowNanos;
      }
    } else if (nowNanos - Math.max(lastChange, lastStarved) >= SHRINK_AFTER_NANOS && limit > floor) {
      limit = Math.max(floor, limit / 2);
      lastChange = nowNanos;
    }
    return limit;
  }

  /**
   * Starts adapting the limit of {@code ch} (connected, tuned): the ceiling is the TCP_NOTSENT_LOWAT
   * it has now. {@code backlogged} tells whether the node holds bytes for the connection. Returns
   * the running task (cancel it when the channel closes), or null where TCP_INFO or the option is
   * not available.
   */
  static ScheduledFuture<?> start(Channel ch, BooleanSupplier backlogged) {
    return start(ch, backlogged, null);
  }

  /**
   * As {@link #start(Channel, BooleanSupplier)}, and each check also runs {@code restart} (may be
   * null): both read the same socket's state on the same tick.
   */
  static ScheduledFuture<?> start(Channel ch, BooleanSupplier backlogged, CongestionRestart restart) {
    if (!(ch.config() instanceof EpollChannelConfig) || SocketTuning.tcpInfo(ch).isEmpty()) {
      return null;
    }
    long ceiling;
    try {
      ceiling = ch.config().getOption(EpollChannelOption.TCP_NOTSENT_LOWAT);
    } catch (RuntimeException e) {
      return null;
    }
    // A configured cap (the link block's); a learned one (LearnedPacing, carried from the peer's last
    // connection) is not measured with a ceiling in time and leaves the ceiling as it was.
    ceiling = ceilingAtPacingCap(ceiling, restart != null && restart.learnsPacing() ? 0 : SocketTuning.maxPacingRate(ch));
    UnsentLimit limit = new UnsentLimit(ceiling, System.nanoTime());
    if (!set(ch, limit.limit())) {
      return null;
    }
    return ch.eventLoop().scheduleWithFixedDelay(() -> {
      boolean waiting = limit.check(ch, backlogged);
      if (restart != null && ch.isActive()) {
        restart.check(ch, waiting);
      }
    }, CHECK_MILLIS, CHECK_MILLIS, TimeUnit.MILLISECONDS);
  }

  /** Returns whether the node held bytes for the socket. */
  private boolean check(Channel ch, BooleanSupplier backlogged) {
    if (!ch.isActive()) {
      return false;
    }
    boolean waiting = backlogged.getAsBoolean();
    Optional<TcpInfoSnapshot> info = waiting ? SocketTuning.tcpInfo(ch) : Optional.empty();
    long before = limit;
    // Either the kernel marked its sender application-limited, or it has nothing unsent right now
    // while the node holds bytes (the kernel's mark needs an idle qdisc and misses some of those).
    long after = info.isPresent()
        ? observe(System.nanoTime(), true, info.get().deliveryRateAppLimited() || info.get().notSentBytes() == 0, info.get().sendCwndSegments(),
            info.get().rttMicros())
        : observe(System.nanoTime(), false, false, 0, 0);
    if (after != before && set(ch, after)) {
      log.debug("WAN socket {}: unsent limit {} -> {} bytes", ch, before, after);
    }
    return waiting;
  }

  private static boolean set(Channel ch, long bytes) {
    try {
      return ch.config().setOption(EpollChannelOption.TCP_NOTSENT_LOWAT, bytes);
    } catch (RuntimeException e) {
      log.debug("cannot set TCP_NOTSENT_LOWAT {} on {}: {}", bytes, ch, e.toString());
      return false;
    }
  }
}
