package io.tcpopt.servicenode.leg;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelOption;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollSocketChannelConfig;
import io.tcpopt.common.net.SocketTuning;
import io.tcpopt.common.profile.TcpProfile;
import io.tcpopt.servicenode.flow.LegSettings;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TCP options of one local leg: from the leg's TCP profile when the verdict carries one, else
 * the node's {@code lan} defaults (TCP_NODELAY, kernel buffers and congestion control, no
 * keepalive, the {@code lan} idle timeout and watermarks).
 *
 * @param profile the profile's name, null for the defaults
 * @param sendBuffer {@code SO_SNDBUF} to ask for; 0 leaves the kernel's autotuning in charge
 * @param receiveBuffer {@code SO_RCVBUF} to ask for; 0 = autotuning
 * @param keepalive TCP keepalive idle time; zero = keepalive off
 * @param idleTimeout the flow is closed after no bytes on the leg for this long
 * @param congestionControl the congestion control to set, null to keep the kernel default
 */
public record LegTuning(String profile, int sendBuffer, int receiveBuffer, boolean noDelay, Duration keepalive, Duration idleTimeout,
    int writeBufferLow, int writeBufferHigh, String congestionControl) {
  private static final Logger log = LoggerFactory.getLogger(LegTuning.class);
  /** The kernel's limit for TCP_KEEPINTVL (and TCP_KEEPIDLE), in seconds. */
  private static final long MAX_KEEPALIVE_SECONDS = 32767;

  /** The node's {@code lan} defaults. */
  public static LegTuning defaults(LegOptions options) {
    return new LegTuning(null, 0, 0, true, Duration.ZERO, options.idleTimeout(), options.writeBufferLow(), options.writeBufferHigh(), null);
  }

  /**
   * The tuning of {@code profile}, or the defaults when it is null. A profile without an idle
   * timeout keeps the {@code lan} idle timeout, so that no flow lives forever by accident.
   */
  public static LegTuning of(TcpProfile profile, LegOptions options) {
    if (profile == null) {
      return defaults(options);
    }
    Duration idle = profile.idleTimeoutEnabled() ? profile.idleTimeout() : options.idleTimeout();
    int high = clamp(profile.proxyBufferHigh());
    int low = clamp(profile.proxyBufferLow());
    if (high <= 0) {
      high = options.writeBufferHigh();
      low = options.writeBufferLow();
    }
    return new LegTuning(profile.name(), clamp(profile.sendBuffer()), clamp(profile.receiveBuffer()), !profile.nagle(), profile.keepalive(),
        idle, low, high, profile.congestionControl());
  }

  private static int clamp(long v) {
    return (int) Math.min(Integer.MAX_VALUE, v);
  }

  public WriteBufferWaterMark watermarks() {
    return new WriteBufferWaterMark(writeBufferLow, writeBufferHigh);
  }

  /**
   * Options that should precede a connect: the buffers (the window scale is fixed by the SYN).
   * TCP_NODELAY only when the profile turns Nagle on: a leg's bootstrap ({@link
   * io.tcpopt.common.transport.Legs#client}) makes every leg with it, and setting it again would
   * cost each flow a system call.
   */
  public void beforeConnect(Bootstrap b) {
    b.option(ChannelOption.WRITE_BUFFER_WATER_MARK, watermarks());
    if (!noDelay) {
      b.option(ChannelOption.TCP_NODELAY, false);
    }
    if (sendBuffer > 0) {
      b.option(ChannelOption.SO_SNDBUF, sendBuffer);
    }
    if (receiveBuffer > 0) {
      b.option(ChannelOption.SO_RCVBUF, receiveBuffer);
    }
  }

  /**
   * Applies everything to an open leg and reads the result back. Never throws: an option the
   * kernel refuses is logged and shows in the read-back.
   *
   * <p>The {@code lan} defaults are not applied again nor read back: every leg is made with them
   * (the listeners' child options, {@link #beforeConnect}), and the kernel autotunes its buffers,
   * so the settings say so (buffers -1) without the five system calls a read-back costs per flow.
   */
  public LegSettings apply(Channel leg) {
    if (profile == null) {
      return new LegSettings(null, -1, -1, noDelay, false, Duration.ZERO, "kernel default", idleTimeout, writeBufferLow, writeBufferHigh);
    }
    ChannelConfig c = leg.config();
    if (sendBuffer > 0) {
      set(leg, ChannelOption.SO_SNDBUF, sendBuffer);
    }
    if (receiveBuffer > 0) {
      set(leg, ChannelOption.SO_RCVBUF, receiveBuffer);
    }
    set(leg, ChannelOption.TCP_NODELAY, noDelay);
    c.setWriteBufferWaterMark(watermarks());
    if (!keepalive.isZero()) {
      set(leg, ChannelOption.SO_KEEPALIVE, true);
      if (c instanceof EpollSocketChannelConfig) {
        int idle = (int) Math.max(1, Math.min(MAX_KEEPALIVE_SECONDS, keepalive.toSeconds()));
        set(leg, EpollChannelOption.TCP_KEEPIDLE, idle);
        set(leg, EpollChannelOption.TCP_KEEPINTVL, Math.min(75, idle));
      }
    }
    String cc = congestionControl == null ? "kernel default" : setCongestionControl(leg);
    boolean ka = Boolean.TRUE.equals(get(c, ChannelOption.SO_KEEPALIVE));
    Duration keepIdle = Duration.ZERO;
    if (ka && c instanceof EpollSocketChannelConfig) {
      Integer s = get(c, EpollChannelOption.TCP_KEEPIDLE);
      keepIdle = s == null ? Duration.ZERO : Duration.ofSeconds(s);
    }
    Integer snd = get(c, ChannelOption.SO_SNDBUF);
    Integer rcv = get(c, ChannelOption.SO_RCVBUF);
    WriteBufferWaterMark w = c.getWriteBufferWaterMark();
    return new LegSettings(profile, snd == null ? -1 : snd, rcv == null ? -1 : rcv, Boolean.TRUE.equals(get(c, ChannelOption.TCP_NODELAY)), ka,
        keepIdle, cc, idleTimeout, w.low(), w.high());
  }

  /**
   * Sets the profile's congestion control and trusts the kernel's answer instead of reading it
   * back (see {@link SocketTuning#setCongestionControl}). Returns the name in effect, or "kernel
   * default" when the kernel refused it or the leg is not epoll.
   */
  private String setCongestionControl(Channel leg) {
    if (!(leg.config() instanceof EpollSocketChannelConfig)) {
      return "kernel default";
    }
    try {
      SocketTuning.setCongestionControl(leg, congestionControl);
      return congestionControl;
    } catch (RuntimeException e) {
      log.warn("profile {}: congestion control {} not available (see net.ipv4.tcp_allowed_congestion_control): {}", profile, congestionControl,
          e.toString());
      return "kernel default";
    }
  }

  private <T> void set(Channel leg, ChannelOption<T> option, T value) {
    try {
      leg.config().setOption(option, value);
    } catch (RuntimeException e) {
      log.warn("profile {}: cannot set {}={} on {}: {}", profile, option.name(), value, leg, e.toString());
    }
  }

  private static <T> T get(ChannelConfig c, ChannelOption<T> option) {
    try {
      return c.getOption(option);
    } catch (RuntimeException e) {
      return null;
    }
  }
}
