package io.tcpopt.common.net;

import io.netty.bootstrap.AbstractBootstrapConfig;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelOption;
import io.netty.channel.epoll.EpollChannelConfig;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.epoll.EpollTcpInfo;
import io.netty.channel.unix.IntegerUnixChannelOption;
import io.netty.channel.unix.RawUnixChannelOption;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies {@link WanSocketSettings} to Netty channels. Works fully on the native epoll transport,
 * which can set arbitrary socket options; on NIO only the portable buffer sizes apply and the rest
 * is reported as a warning.
 *
 * <p>Buffers are set on the bootstrap, before connect or listen, because Linux fixes the TCP
 * window scale from the receive buffer at the SYN. With CAP_NET_ADMIN the {@code *FORCE} options
 * are used so that {@code net.core.rmem_max}/{@code wmem_max} do not silently cap them. Congestion
 * control and pacing are set on the connected channel by {@link #applyWan} and read back.
 *
 * <p>{@code applyWan} also sets TCP_NOTSENT_LOWAT to {@link #notSentLowWatermark} (a
 * quarter of the bandwidth-delay product, within [128 KiB, 4 MiB]). Bytes in flight do not count against it, so
 * throughput is unchanged, but the kernel stops taking new bytes once that much is unsent: the
 * rest waits in Netty, where the channel turns unwritable and the multiplexer chooses which
 * stream sends next. Without it a 12.5 MB send buffer (250 Mbit/s, 200 ms) could queue 400 ms
 * of other streams' bytes in front of a short transaction. That value is the most a WAN
 * connection uses: the service node's session layer lowers it while the node keeps the socket fed.
 *
 * <p>Each distinct warning is logged once at WARN, repeats at DEBUG, so a session pool that
 * reconnects does not flood the log.
 */
public final class SocketTuning {
  private static final Logger log = LoggerFactory.getLogger(SocketTuning.class);

  private static final int SOL_SOCKET = 1;
  private static final int IPPROTO_TCP = 6;
  private static final int TCP_INFO = 11;
  private static final int TCP_CONGESTION = 13;
  private static final int TCP_CA_NAME_MAX = 16;
  private static final int TCP_CC_INFO = 26;
  /** struct tcp_bbr_info: bw_lo, bw_hi (bytes per second), min_rtt, pacing_gain, cwnd_gain; 32 bits each. */
  private static final int TCP_BBR_INFO_LENGTH = 20;
  /** Bytes of struct tcp_info read: up to and including tcpi_snd_wnd (Linux 5.4+); older kernels fill less. */
  private static final int TCP_INFO_LENGTH = 232;

  static final ChannelOption<Integer> SO_SNDBUFFORCE = new IntegerUnixChannelOption("SO_SNDBUFFORCE", SOL_SOCKET, 32);
  static final ChannelOption<Integer> SO_RCVBUFFORCE = new IntegerUnixChannelOption("SO_RCVBUFFORCE", SOL_SOCKET, 33);
  static final ChannelOption<Integer> SO_MAX_PACING_RATE = new IntegerUnixChannelOption("SO_MAX_PACING_RATE", SOL_SOCKET, 47);
  private static final RawUnixChannelOption TCP_CONGESTION_READ =
      new RawUnixChannelOption("TCP_CONGESTION", IPPROTO_TCP, TCP_CONGESTION, TCP_CA_NAME_MAX);
  private static final RawUnixChannelOption TCP_CC_INFO_READ =
      new RawUnixChannelOption("TCP_CC_INFO", IPPROTO_TCP, TCP_CC_INFO, TCP_BBR_INFO_LENGTH);
  private static final RawUnixChannelOption TCP_INFO_READ = new RawUnixChannelOption("TCP_INFO", IPPROTO_TCP, TCP_INFO, TCP_INFO_LENGTH);

  private static final Set<String> LOGGED = ConcurrentHashMap.newKeySet();

  private SocketTuning() {}

  /** Socket buffers for a dialling bootstrap; call before {@code connect}. */
  public static void configureBootstrap(Bootstrap b, WanSocketSettings s) {
    if (forceBuffers(b.config())) {
      b.option(SO_SNDBUFFORCE, s.sendBufferBytes()).option(SO_RCVBUFFORCE, s.receiveBufferBytes());
    } else {
      b.option(ChannelOption.SO_SNDBUF, s.sendBufferBytes()).option(ChannelOption.SO_RCVBUF, s.receiveBufferBytes());
    }
  }

  /**
   * Socket buffers for an accepting bootstrap: on the listener (accepted sockets inherit them before
   * the SYN-ACK fixes the window scale) and again on each child.
   */
  public static void configureServerBootstrap(ServerBootstrap b, WanSocketSettings s) {
    if (forceBuffers(b.config())) {
      b.option(SO_RCVBUFFORCE, s.receiveBufferBytes())
          .childOption(SO_SNDBUFFORCE, s.sendBufferBytes())
          .childOption(SO_RCVBUFFORCE, s.receiveBufferBytes());
    } else {
      b.option(ChannelOption.SO_RCVBUF, s.receiveBufferBytes())
          .childOption(ChannelOption.SO_SNDBUF, s.sendBufferBytes())
          .childOption(ChannelOption.SO_RCVBUF, s.receiveBufferBytes());
    }
  }

  /**
   * Sets congestion control and the pacing cap on a connected (or accepted) channel and reads back
   * everything, buffers included. Never throws: what could not be applied is in the warnings.
   */
  public static TuningResult applyWan(Channel connected, WanSocketSettings s) {
    List<String> warnings = new ArrayList<>();
    ChannelConfig config = connected.config();
    if (!(config instanceof EpollChannelConfig)) {
      warnings.add("congestion control and pacing need the native epoll transport; " + connected.getClass().getSimpleName()
          + " keeps the kernel default (net.ipv4.tcp_congestion_control)");
      TuningResult r = new TuningResult("unknown", false, intOption(config, ChannelOption.SO_SNDBUF), intOption(config, ChannelOption.SO_RCVBUF), 0, warnings);
      warn(warnings);
      return r;
    }

    String wanted = s.congestionControl();
    try {
      setCongestionControl(connected, wanted);
    } catch (RuntimeException e) {
      warnings.add("congestion control " + wanted + " is not available in this kernel (see net.ipv4.tcp_available_congestion_control; "
          + "modprobe tcp_" + wanted + "): " + reason(e));
    }
    String actual = congestionControl(connected);
    boolean applied = wanted.equals(actual);
    if (!applied && warnings.isEmpty()) {
      warnings.add("congestion control reads back as " + actual + ", not " + wanted);
    }

    long pacing = 0;
    if (s.pacingRateBytesPerSecond() > 0) {
      int asked = (int) Math.min(Integer.MAX_VALUE, s.pacingRateBytesPerSecond());
      try {
        config.setOption(SO_MAX_PACING_RATE, asked);
        pacing = Integer.toUnsignedLong(config.getOption(SO_MAX_PACING_RATE));
        if (pacing != asked) {
          warnings.add("pacing cap reads back as " + pacing + " B/s, not " + asked + " B/s");
        }
      } catch (RuntimeException e) {
        warnings.add("cannot set SO_MAX_PACING_RATE " + asked + " B/s: " + reason(e));
      }
    }

    long lowWatermark = notSentLowWatermark(s);
    try {
      config.setOption(EpollChannelOption.TCP_NOTSENT_LOWAT, lowWatermark);
    } catch (RuntimeException e) {
      warnings.add("cannot set TCP_NOTSENT_LOWAT " + lowWatermark + ": " + reason(e) + "; streams may queue behind each other in the send buffer");
    }

    int send = intOption(config, ChannelOption.SO_SNDBUF);
    int receive = intOption(config, ChannelOption.SO_RCVBUF);
    // Linux doubles the requested size; less than the request means a sysctl cap applied.
    if (send >= 0 && send < s.sendBufferBytes()) {
      warnings.add("send buffer is " + send + " bytes, asked " + s.sendBufferBytes() + ": raise net.core.wmem_max or run with CAP_NET_ADMIN");
    }
    if (receive >= 0 && receive < s.receiveBufferBytes()) {
      warnings.add("receive buffer is " + receive + " bytes, asked " + s.receiveBufferBytes() + ": raise net.core.rmem_max or run with CAP_NET_ADMIN");
    }
    warn(warnings);
    return new TuningResult(actual, applied, send, receive, pacing, warnings);
  }

  /**
   * Sets TCP_CONGESTION on an epoll socket (WAN connection or leg). The name goes in a direct
   * buffer: on legs, setting a raw option through a heap buffer was seen to break the socket's later
   * EPOLLOUT registration under Netty 4.2.18 (epoll_ctl ENOENT, the leg's output shut down
   * mid-flow). Throws when the kernel refuses (module not built or loaded, not in {@code
   * net.ipv4.tcp_allowed_congestion_control} without CAP_NET_ADMIN) or the channel is not epoll.
   */
  public static void setCongestionControl(Channel ch, String name) {
    if (!(ch.config() instanceof EpollChannelConfig)) {
      throw new IllegalStateException("congestion control needs the native epoll transport");
    }
    byte[] bytes = name.getBytes(StandardCharsets.US_ASCII);
    ByteBuffer value = ByteBuffer.allocateDirect(bytes.length).put(bytes).flip();
    ch.config().setOption(new RawUnixChannelOption("TCP_CONGESTION", IPPROTO_TCP, TCP_CONGESTION, bytes.length), value);
  }

  /**
   * Unsent bytes the kernel may hold per WAN socket: a quarter of the bandwidth-delay product (the
   * send buffer is {@link WanSocketSettings#BDP_MULTIPLE} of them), within [128 KiB, 4 MiB].
   */
  public static long notSentLowWatermark(WanSocketSettings s) {
    return Math.max(128 * 1024, Math.min(4 * 1024 * 1024, s.sendBufferBytes() / (4L * WanSocketSettings.BDP_MULTIPLE)));
  }

  /** The kernel's TCP_INFO for the channel; empty on NIO, on non-Linux, or once the socket is closed. */
  public static Optional<TcpInfoSnapshot> tcpInfo(Channel ch) {
    if (!(ch.config() instanceof EpollChannelConfig) || !ch.isOpen()) {
      return Optional.empty();
    }
    try {
      ByteBuffer raw = ch.config().getOption(TCP_INFO_READ);
      if (raw != null) {
        return Optional.of(parseTcpInfo(raw));
      }
    } catch (RuntimeException e) {
      log.debug("raw TCP_INFO unavailable on {}: {}", ch, reason(e));
    }
    if (ch instanceof EpollSocketChannel epoll) {
      try {
        EpollTcpInfo info = epoll.tcpInfo();
        return Optional.of(new TcpInfoSnapshot(info.rtt(), info.rttvar(), info.sndCwnd(), info.totalRetrans(), 0, 0, 0, false));
      } catch (RuntimeException e) {
        log.debug("TCP_INFO unavailable on {}: {}", ch, reason(e));
      }
    }
    return Optional.empty();
  }

  /**
   * BBR's bandwidth estimate of the channel in bytes per second (TCP_CC_INFO), or empty when the
   * socket does not run BBR, is closed or is not epoll.
   */
  public static OptionalLong bbrBandwidth(Channel ch) {
    if (!(ch.config() instanceof EpollChannelConfig) || !ch.isOpen()) {
      return OptionalLong.empty();
    }
    try {
      ByteBuffer raw = ch.config().getOption(TCP_CC_INFO_READ);
      if (raw == null || raw.limit() < 8) {
        return OptionalLong.empty();
      }
      ByteBuffer b = raw.duplicate().order(ByteOrder.nativeOrder());
      long bw = Integer.toUnsignedLong(b.getInt(0)) | (Integer.toUnsignedLong(b.getInt(4)) << 32);
      return bw > 0 ? OptionalLong.of(bw) : OptionalLong.empty();
    } catch (RuntimeException e) {
      return OptionalLong.empty();
    }
  }

  /**
   * BBR's pacing gain on the channel (TCP_CC_INFO, in BBR units: 256 is 1.0; STARTUP 739, DRAIN 88,
   * PROBE_BW 192–320, PROBE_RTT 256), or empty when the socket does not run BBR or is not epoll.
   */
  public static OptionalInt bbrPacingGain(Channel ch) {
    return bbrInfoField(ch, 12);
  }

  /**
   * BBR's congestion-window gain on the channel (TCP_CC_INFO, BBR units: STARTUP and DRAIN 739, PROBE_BW 512,
   * PROBE_RTT 256), or empty when the socket does not run BBR or is not epoll.
   */
  public static OptionalInt bbrCwndGain(Channel ch) {
    return bbrInfoField(ch, 16);
  }

  /** BBR's minimum RTT on the channel in microseconds (TCP_CC_INFO), or empty when the socket does not run BBR or is not epoll. */
  public static OptionalInt bbrMinRttMicros(Channel ch) {
    return bbrInfoField(ch, 8);
  }

  private static OptionalInt bbrInfoField(Channel ch, int offset) {
    if (!(ch.config() instanceof EpollChannelConfig) || !ch.isOpen()) {
      return OptionalInt.empty();
    }
    try {
      ByteBuffer raw = ch.config().getOption(TCP_CC_INFO_READ);
      if (raw == null || raw.limit() < offset + 4) {
        return OptionalInt.empty();
      }
      return OptionalInt.of(raw.duplicate().order(ByteOrder.nativeOrder()).getInt(offset));
    } catch (RuntimeException e) {
      return OptionalInt.empty();
    }
  }

  /** The channel's pacing cap (SO_MAX_PACING_RATE) in bytes per second, 0 when it has none or it cannot be read. */
  public static long maxPacingRate(Channel ch) {
    if (!(ch.config() instanceof EpollChannelConfig) || !ch.isOpen()) {
      return 0;
    }
    try {
      int raw = ch.config().getOption(SO_MAX_PACING_RATE);
      return raw == -1 ? 0 : Integer.toUnsignedLong(raw); // ~0U: no cap
    } catch (RuntimeException e) {
      return 0;
    }
  }

  /** Sets the channel's pacing cap (SO_MAX_PACING_RATE, at most {@link Integer#MAX_VALUE} B/s); returns whether the kernel took it. */
  public static boolean setMaxPacingRate(Channel ch, long bytesPerSecond) {
    if (!(ch.config() instanceof EpollChannelConfig) || !ch.isOpen() || bytesPerSecond <= 0) {
      return false;
    }
    try {
      return ch.config().setOption(SO_MAX_PACING_RATE, (int) Math.min(Integer.MAX_VALUE, bytesPerSecond));
    } catch (RuntimeException e) {
      log.debug("cannot set SO_MAX_PACING_RATE {} on {}: {}", bytesPerSecond, ch, reason(e));
      return false;
    }
  }

  /**
   * Restarts the channel's congestion control from its initial state (BBR: STARTUP, its bandwidth
   * filter empty) by switching to {@code reno}, which every kernel has, and back: Linux
   * re-initialises a module only when the name changes. Returns whether the socket runs {@code name}
   * again afterwards.
   */
  public static boolean restartCongestionControl(Channel ch, String name) {
    try {
      setCongestionControl(ch, "reno");
      setCongestionControl(ch, name);
    } catch (RuntimeException e) {
      log.debug("cannot restart congestion control {} on {}: {}", name, ch, reason(e));
      try {
        setCongestionControl(ch, name);
      } catch (RuntimeException again) {
        log.debug("cannot set congestion control {} on {}: {}", name, ch, reason(again));
      }
    }
    return name.equals(congestionControl(ch));
  }

  /** The congestion control module in effect on the channel, or {@code unknown}. */
  public static String congestionControl(Channel ch) {
    if (!(ch.config() instanceof EpollChannelConfig) || !ch.isOpen()) {
      return "unknown";
    }
    try {
      ByteBuffer raw = ch.config().getOption(TCP_CONGESTION_READ);
      byte[] bytes = new byte[raw.remaining()];
      raw.duplicate().get(bytes);
      int end = 0;
      while (end < bytes.length && bytes[end] != 0) {
        end++;
      }
      return end == 0 ? "unknown" : new String(bytes, 0, end, StandardCharsets.US_ASCII);
    } catch (RuntimeException e) {
      return "unknown";
    }
  }

  /** Decodes struct tcp_info (native byte order); fields the kernel did not fill read as 0. */
  static TcpInfoSnapshot parseTcpInfo(ByteBuffer raw) {
    ByteBuffer b = raw.duplicate().order(ByteOrder.nativeOrder());
    b.position(0);
    return new TcpInfoSnapshot(
        u32(b, 68), // tcpi_rtt
        u32(b, 72), // tcpi_rttvar
        u32(b, 80), // tcpi_snd_cwnd
        u32(b, 100), // tcpi_total_retrans
        u64(b, 160), // tcpi_delivery_rate
        u64(b, 120), // tcpi_bytes_acked
        u32(b, 144), // tcpi_notsent_bytes
        b.limit() > 7 && (b.get(7) & 1) != 0, // tcpi_delivery_rate_app_limited, the low bit after the wscale byte
        b.limit() > 1 ? b.get(1) & 0xff : TcpInfoSnapshot.CA_OPEN, // tcpi_ca_state
        // tcp_packets_in_flight: tcpi_unacked - tcpi_sacked - tcpi_lost + tcpi_retrans
        Math.max(0, u32(b, 24) - u32(b, 28) - u32(b, 32) + u32(b, 36)),
        u32(b, 16), // tcpi_snd_mss
        u32(b, 148)); // tcpi_min_rtt
  }

  private static long u32(ByteBuffer b, int offset) {
    return offset + 4 <= b.limit() ? Integer.toUnsignedLong(b.getInt(offset)) : 0;
  }

  private static long u64(ByteBuffer b, int offset) {
    return offset + 8 <= b.limit() ? Math.max(0, b.getLong(offset)) : 0;
  }

  private static boolean forceBuffers(AbstractBootstrapConfig<?, ?> config) {
    return isEpoll(config.channelFactory()) && LinuxCapabilities.has(LinuxCapabilities.CAP_NET_ADMIN);
  }

  /**
   * Whether the bootstrap will create native epoll channels. Netty exposes only the factory, whose
   * {@code toString()} names the channel class ({@code ReflectiveChannelFactory(EpollSocketChannel.class)}).
   */
  static boolean isEpoll(Object factory) {
    return factory != null && factory.toString().contains("Epoll");
  }

  private static int intOption(ChannelConfig config, ChannelOption<Integer> option) {
    try {
      Integer v = config.getOption(option);
      return v == null ? -1 : v;
    } catch (RuntimeException e) {
      return -1;
    }
  }

  private static void warn(List<String> warnings) {
    for (String w : warnings) {
      if (LOGGED.add(w)) {
        log.warn("WAN socket tuning: {}", w);
      } else {
        log.debug("WAN socket tuning: {}", w);
      }
    }
  }

  private static String reason(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
  }
}
