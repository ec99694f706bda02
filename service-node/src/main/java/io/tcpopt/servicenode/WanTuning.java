package io.tcpopt.servicenode;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.tcpopt.common.net.SocketTuning;
import io.tcpopt.common.net.TcpInfoSnapshot;
import io.tcpopt.common.net.TuningResult;
import io.tcpopt.common.net.WanSocketSettings;
import io.tcpopt.servicenode.session.WanSockets;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * WAN socket tuning for this node's link: buffers sized to the bandwidth-delay product, the
 * configured congestion control (BBR by default) and the optional pacing cap, through {@link
 * SocketTuning} (which warns, never fails, where the kernel lacks something). The pacing cap is the
 * link rate shared by the {@code connections} of a peer, so that together they never pace above
 * the link (each at the full rate, 4 connections overran the bottleneck queue: issue 9, run 1).
 */
final class WanTuning implements WanSockets.Tuning {
  private static final Logger log = LoggerFactory.getLogger(WanTuning.class);

  private final WanSocketSettings settings;

  private WanTuning(WanSocketSettings settings) {
    this.settings = settings;
  }

  static WanSockets.Tuning forConfig(ServiceNodeConfig.Wan wan) {
    return new WanTuning(settings(wan));
  }

  /** Buffers for the whole link (one connection may carry it all), pacing at the link rate ÷ connections. */
  static WanSocketSettings settings(ServiceNodeConfig.Wan wan) {
    ServiceNodeConfig.Link link = wan.link();
    WanSocketSettings s = WanSocketSettings.forLink(link.bandwidthBitsPerSecond(), link.rtt(), link.pacing(), wan.congestionControl());
    return new WanSocketSettings(s.congestionControl(), s.sendBufferBytes(), s.receiveBufferBytes(),
        Math.max(s.pacingRateBytesPerSecond() > 0 ? 1 : 0, s.pacingRateBytesPerSecond() / wan.connections()));
  }

  @Override
  public void configure(Bootstrap b) {
    SocketTuning.configureBootstrap(b, settings);
  }

  @Override
  public void configure(ServerBootstrap b) {
    SocketTuning.configureServerBootstrap(b, settings);
  }

  @Override
  public void apply(Channel connected) {
    TuningResult r = SocketTuning.applyWan(connected, settings);
    log.debug("WAN socket {}: congestion control {}, buffers {}/{}, pacing {} B/s", connected, r.congestionControl(), r.sendBuffer(),
        r.receiveBuffer(), r.pacingRate());
  }

  @Override
  public WanSockets.WanStats stats(Channel ch) {
    Optional<TcpInfoSnapshot> info = SocketTuning.tcpInfo(ch);
    String cc = SocketTuning.congestionControl(ch);
    return info.map(i -> new WanSockets.WanStats(i.rttMicros(), i.sendCwndSegments(), i.totalRetransmits(), cc))
        .orElse(new WanSockets.WanStats(-1, -1, -1, cc));
  }
}
