package io.tcpopt.servicenode.session;

import io.netty.channel.Channel;
import io.tcpopt.common.net.SocketTuning;
import io.tcpopt.common.net.TcpInfoSnapshot;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Restarts kernel BBR on a WAN socket whose bandwidth estimate collapsed while the node had bytes
 * to send (issue 9, "the collapse on long lossy rows").
 *
 * <p>The collapse, as traced with {@code ss -ti} on the testbed (300 ms, 0.5% loss): BBR (v1, the
 * kernel's) keeps the largest delivery rate of the last 10 round trips. A connection that idled
 * between transfers still advances round trips (keepalive PINGs, small flows), so the 241 Mbit/s
 * sample ages out of that window while the estimate stays in place. The next transfer's first round
 * trips are application-limited (streams' windows start small) and do not count. The first loss
 * then sends BBR into recovery, which cuts the congestion window to what is in flight (12,792 →
 * 667 packets); the next round trip's samples are window-limited, so they do count, and with the
 * window expired the estimate becomes that sample: 241 → 25.7 Mbit/s in one round trip. BBR then
 * probes upward by 25% every 8 round trips, 2.4 s a step at 300 ms: the 400 MB transfer averaged
 * 64 Mbit/s. Nothing on the path had changed.
 *
 * <p>So on every check (the {@link UnsentLimit} task's, while the node holds bytes for the socket)
 * the estimate (TCP_CC_INFO) is compared with the largest seen since the last restart. When it stays
 * below {@link #COLLAPSE_RATIO half} of it for {@link #CONFIRM_NANOS}, the congestion control
 * is re-initialised: BBR starts over in STARTUP, doubling its rate every round trip instead of
 * adding 25% every eight. The largest estimate is forgotten at a restart (a refresh's too), so a path that really
 * became slower costs one restart (one STARTUP overshoot), not one every {@link #MIN_GAP_NANOS}.
 * The trade-off: on a shared WAN where a competing flow takes half the link or more within a
 * few round trips, the node also restarts once, and its STARTUP overshoots for a round trip or two.
 *
 * <p>Confined to the connection's event loop.
 */
final class CongestionRestart {
  private static final Logger log = LoggerFactory.getLogger(CongestionRestart.class);

  /**
   * An estimate below the largest seen divided by this counts as collapsed. BBR's estimate is a
   * maximum over 10 round trips: it does not halve from loss or probing, only when every sample of
   * 10 round trips was that low or the filter expired (at 300 ms / 2% it fell 241 → 92.7 Mbit/s).
   */
  static final long COLLAPSE_RATIO = 2;
  /** How long the estimate must stay collapsed, with bytes waiting, before the restart. */
  static final long CONFIRM_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
  /** At most one restart per this long. */
  static final long MIN_GAP_NANOS = TimeUnit.SECONDS.toNanos(10);

  /** BBR's congestion window in PROBE_RTT, in packets. */
  static final long PROBE_RTT_CWND = 4;
  /** BBR's congestion-window gain in PROBE_RTT (1.0 in units of 256), and in no other mode. */
  static final int PROBE_RTT_CWND_GAIN = 256;
  /**
   * BBR (v1) enters PROBE_RTT when its minimum RTT is 10 s old; while bytes wait, the congestion
   * control is restarted this long after BBR's last PROBE_RTT (or restart) instead: see {@link
   * #refreshDue}.
   */
  static final long REFRESH_NANOS = TimeUnit.MILLISECONDS.toNanos(9_000);
  /**
   * No refresh while the smoothed RTT exceeds BBR's minimum by more than this factor: the path's RTT
   * may have grown, and BBR's PROBE_RTT is what learns it (a restart would keep the old minimum).
   */
  static final double REFRESH_MAX_RTT_RATIO = 1.25;
  /** In loss recovery, a refresh waits until this fraction of a bandwidth-delay product is in flight: see {@link #keepsWindow}. */
  static final double REFRESH_MIN_PIPE = 0.75;

  private final String congestionControl;
  /** The socket's learned pacing cap when its configuration sets none, else null. */
  private final LearnedPacing pacing;
  /** Whether the socket is its pool's express connection: see {@link #probeRttDelays}. */
  private final boolean express;
  private long peak;
  private long lowSince = -1;
  private long lastRestart;
  private long restarts;
  /** When BBR's minimum-RTT filter was last known fresh: its PROBE_RTT seen, a restart, or this guard's start. */
  private long minRttFresh;
  private long refreshes;
  private long deferredRefreshes;

  CongestionRestart(String congestionControl, long nowNanos) {
    this(congestionControl, nowNanos, null, false);
  }

  /** Whether the socket's pacing cap is learned here (its configuration sets none). */
  boolean learnsPacing() {
    return pacing != null;
  }

  CongestionRestart(String congestionControl, long nowNanos, LearnedPacing pacing, boolean express) {
    this.congestionControl = congestionControl;
    this.pacing = pacing;
    this.express = express;
    this.lastRestart = nowNanos - MIN_GAP_NANOS;
    this.minRttFresh = nowNanos;
  }

  /**
   * A guard for {@code ch}, a connection to peer {@code peer} ({@code express}: its pool's express
   * connection), if it runs BBR (read back from the socket), else null; with a {@link LearnedPacing}
   * cap, starting from the one the node last learned to that peer ({@code rates}), when the socket
   * has no pacing cap of its own.
   */
  static CongestionRestart forChannel(Channel ch, LearnedRates rates, String peer, boolean express) {
    String cc = SocketTuning.congestionControl(ch);
    return "bbr".equals(cc) && SocketTuning.bbrBandwidth(ch).isPresent()
        ? new CongestionRestart(cc, System.nanoTime(), LearnedPacing.forChannel(ch, rates, peer), express)
        : null;
  }

  long restarts() {
    return restarts;
  }

  long refreshes() {
    return refreshes;
  }

  /** Ticks on which a refresh was due but waited because a restart would have cut the window. */
  long deferredRefreshes() {
    return deferredRefreshes;
  }

  /**
   * The minimum RTT a restarted BBR starts from: the connection's own ({@code kernelMinRttMicros},
   * tcp_min_rtt) where the kernel reports it, else BBR's ({@code bbrMinRttMicros}); 0 when BBR's is
   * unknown.
   */
  static long restartMinRtt(long kernelMinRttMicros, long bbrMinRttMicros) {
    if (bbrMinRttMicros <= 0) {
      return 0;
    }
    return kernelMinRttMicros > 0 ? Math.min(kernelMinRttMicros, bbrMinRttMicros) : bbrMinRttMicros;
  }

  /**
   * Whether restarting BBR now keeps its congestion window. Linux's BBR starts a restarted
   * connection as if it had just entered the loss recovery it is in: in recovery ({@code caState}
   * CWR, Recovery or Loss) its first ACK sets the window to the segments in flight, which can be a
   * fraction of it. At 300 ms / 2% loss the connection is in recovery almost always, and refreshes
   * taken at a lull cut the window from 12,282 to 3,190 and from 12,048 to 1,042 segments, each
   * followed by a second or more at half the link rate (issue 9). So a restart in recovery is taken
   * only while at least {@link #REFRESH_MIN_PIPE} of a bandwidth-delay product ({@code bandwidth}
   * bytes/s × {@code minRttMicros}) is in flight: STARTUP then regrows the window from a nearly full
   * pipe within a round trip. (BBR paces at its estimate, so outside its probes about one BDP is in
   * flight.)
   */
  static boolean keepsWindow(int caState, long inFlightSegments, long mss, long bandwidth, long minRttMicros) {
    if (caState < TcpInfoSnapshot.CA_CWR) {
      return true;
    }
    if (mss <= 0 || bandwidth <= 0 || minRttMicros <= 0) {
      return false;
    }
    return (double) inFlightSegments * mss >= REFRESH_MIN_PIPE * bandwidth * minRttMicros / 1e6;
  }

  /**
   * Whether BBR's PROBE_RTT would hold packets of the connection back: bytes wait ({@code waiting}),
   * or, on the express connection ({@code express}), at least {@link #PROBE_RTT_CWND} segments are
   * in flight ({@code inFlightSegments}). The express connection never has bytes waiting, yet its
   * PROBE_RTT costs its streams' latency: a request/response stream keeps one packet in flight per
   * request interval of the round trip (issue 9, 9.3 at 200 ms: a 1 KB echo every 50 ms, 4-5
   * segments), so with a window of 4 each response waited in the DC's socket for the ACK the branch
   * sends with its next request, 50 ms, for the half second PROBE_RTT lasts every 10 s (tcpdump of
   * both nodes: responses leaving the DC 48-98 ms after the server's answer, the DC's express socket
   * at cwnd 4 with 1,092 bytes unsent; docs/benchmarks.md, echo9h). At 100 ms it holds 2-3 and
   * PROBE_RTT cost nothing. Bulk connections keep the rule of bytes waiting.
   */
  static boolean probeRttDelays(boolean waiting, boolean express, long inFlightSegments) {
    return waiting || (express && inFlightSegments >= PROBE_RTT_CWND);
  }

  /**
   * Whether BBR is in PROBE_RTT, from its congestion-window gain ({@code cwndGain}, -1 when unknown):
   * 1.0 there and in no other mode. Not from the window alone: a retransmission timeout also leaves
   * a window of 1-4 packets but does not refresh BBR's minimum RTT, and at 2% loss one at the start of
   * a transfer (a lost packet of the idle connection) was taken for a PROBE_RTT, so the refresh was
   * put off by 9 s and BBR's own PROBE_RTT came instead, ~0.7 s without deliveries in both 300 ms / 2%
   * rows of a pair (issue 9, docs/benchmarks.md, lossy9d).
   */
  static boolean inProbeRtt(int cwndGain) {
    return cwndGain == PROBE_RTT_CWND_GAIN;
  }

  /**
   * One check for PROBE_RTT: whether it would hold packets back ({@code backlogged}: {@link
   * #probeRttDelays}), whether BBR is in PROBE_RTT ({@link #inProbeRtt}),
   * the smoothed RTT and BBR's minimum RTT (microseconds, 0 when unknown). Returns true when the
   * congestion control should restart now to refresh BBR's minimum RTT.
   *
   * <p>BBR (v1) drains the path to 4 packets for 200 ms and a round trip when its minimum RTT was
   * not undercut for 10 s, which on a busy connection with a steady RTT is every 10 s. At 300 ms that
   * is about half a second without deliveries every 10 s (issue 9: three in 37 s of transfers at
   * 300 ms / 0.5% and 2%; a 400 MB transfer can lose no more than 0.6 s to reach 95% of the link).
   * Linux re-initialises BBR on a restart with the connection's own minimum RTT (tcp_min_rtt, a
   * 5-minute window) stamped now, and keeps the congestion window; its pacing rate starts from that
   * window (capped by the socket's pacing cap) and STARTUP sees the full pipe's delivery rate in its
   * first round trip. So a restart shortly before the 10 s costs a STARTUP that the pacing cap holds
   * near the link rate, instead of the drain. Only while bytes wait: an idle connection's PROBE_RTT
   * costs nothing; nor while the smoothed RTT is more than {@link #REFRESH_MAX_RTT_RATIO} times the
   * minimum, since the kernel's minimum would then hide an RTT that grew. The trade-off: on a busy
   * connection whose RTT stays near its minimum, BBR no longer drains the path to measure it.
   *
   * <p>{@code keepsWindow}: whether a restart now would leave BBR a full pipe (see {@link
   * #keepsWindow}); when it would not, the refresh waits for a tick when it does (the refresh comes
   * 1 s before BBR's own PROBE_RTT: 20 ticks to find one), and otherwise BBR's PROBE_RTT happens.
   */
  boolean refreshDue(long nowNanos, boolean backlogged, boolean probeRtt, long srttMicros, long minRttMicros, boolean keepsWindow) {
    if (probeRtt) {
      minRttFresh = nowNanos;
      return false;
    }
    if (!backlogged || nowNanos - minRttFresh < REFRESH_NANOS || minRttMicros <= 0 || srttMicros > minRttMicros * REFRESH_MAX_RTT_RATIO) {
      return false;
    }
    if (!keepsWindow) {
      deferredRefreshes++;
      return false;
    }
    minRttFresh = nowNanos;
    refreshes++;
    // The restart starts BBR's estimate over from its first samples, which in loss recovery can be a
    // fifth of the rate: compared with the old peak that looked like a collapse, and within 0.3 s of
    // a refresh the guard restarted BBR a second time (issue 9, tcpopt-nolink at 300 ms / 2%:
    // "collapsed to 49.9 Mbit/s from 242.7"; BBR's estimate was 235 in the sample before). The peak
    // starts over with the estimate.
    peak = 0;
    lowSince = -1;
    return true;
  }

  /**
   * One check: whether the node holds bytes for the socket and BBR's estimate (bytes per second, 0
   * when unknown). Returns true when the congestion control should restart now.
   */
  boolean observe(long nowNanos, boolean backlogged, long bandwidth, long cwndSegments) {
    if (bandwidth <= 0) {
      return false;
    }
    peak = Math.max(peak, bandwidth);
    if (!backlogged || bandwidth * COLLAPSE_RATIO >= peak) {
      lowSince = -1;
      return false;
    }
    if (lowSince < 0) {
      lowSince = nowNanos;
    }
    // In PROBE_RTT the window is 4 packets for 200 ms; BBR restarted then would start from it
    // (seen: 7 s to reach the link rate at 300 ms instead of 3), so wait for it to end.
    if (nowNanos - lowSince < CONFIRM_NANOS || nowNanos - lastRestart < MIN_GAP_NANOS || cwndSegments <= PROBE_RTT_CWND) {
      return false;
    }
    lastRestart = nowNanos;
    minRttFresh = nowNanos;
    lowSince = -1;
    peak = 0;
    restarts++;
    return true;
  }

  /**
   * Reads the socket's estimate and restarts its congestion control when {@link #observe} says so.
   * Bytes wait when the node holds some ({@code nodeBacklogged}) or the kernel has unsent ones: a
   * collapse right after the unsent limit had grown is absorbed by the kernel's queue for seconds
   * before the node holds anything (2.8 s at 300 ms).
   */
  void check(Channel ch, boolean nodeBacklogged) {
    OptionalLong bw = SocketTuning.bbrBandwidth(ch);
    if (bw.isEmpty()) {
      return;
    }
    if (pacing != null) {
      pacing.check(ch, bw.getAsLong());
    }
    Optional<TcpInfoSnapshot> info = SocketTuning.tcpInfo(ch);
    if (info.isEmpty()) {
      return;
    }
    boolean waiting = nodeBacklogged || info.get().notSentBytes() > 0;
    long before = peak;
    if (observe(System.nanoTime(), waiting, bw.getAsLong(), info.get().sendCwndSegments())) {
      boolean ok = SocketTuning.restartCongestionControl(ch, congestionControl);
      log.info("WAN socket {}: {} estimate collapsed to {} Mbit/s from {} with bytes waiting; congestion control restarted{} ({} so far)",
          ch, congestionControl, megabits(bw.getAsLong()), megabits(before), ok ? "" : " FAILED, now " + SocketTuning.congestionControl(ch),
          restarts);
      return;
    }
    TcpInfoSnapshot i = info.get();
    long minRtt = SocketTuning.bbrMinRttMicros(ch).orElse(0);
    // A restarted BBR starts from the connection's own minimum RTT (tcp_min_rtt, kept over
    // net.ipv4.tcp_min_rtt_wlen: 300 s by default, 10 s with the host settings, HostTuning), not
    // from the one BBR has now: compare the RTT with that one. Seen on the testbed after the RTT
    // went from 150 to 300 ms: BBR had learned 300 ms in its PROBE_RTT, a refresh put 150 ms back
    // and its window at one BDP (6,400 segments instead of 12,900) for 20 s, until the next
    // PROBE_RTT; the 300 ms / 0.5% row ran at 216.7 Mbit/s. Until the kernel forgets the shorter
    // path's RTT, BBR's own PROBE_RTT comes every 10 s.
    if (refreshDue(System.nanoTime(), probeRttDelays(waiting, express, i.inFlightSegments()), inProbeRtt(SocketTuning.bbrCwndGain(ch).orElse(-1)), i.rttMicros(), restartMinRtt(i.minRttMicros(), minRtt),
        keepsWindow(i.caState(), i.inFlightSegments(), i.sendMss(), bw.getAsLong(), minRtt))) {
      boolean ok = SocketTuning.restartCongestionControl(ch, congestionControl);
      log.debug("WAN socket {}: {} restarted before its PROBE_RTT (bytes waiting, or on the express connection segments in flight){} ({} so far, {} ticks waited for a full pipe)", ch,
          congestionControl, ok ? "" : " FAILED, now " + SocketTuning.congestionControl(ch), refreshes, deferredRefreshes);
    }
  }

  private static String megabits(long bytesPerSecond) {
    return String.format("%.1f", bytesPerSecond * 8 / 1e6);
  }
}
