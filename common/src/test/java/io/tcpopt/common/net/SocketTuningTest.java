package io.tcpopt.common.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SocketTuningTest {
  private static final WanSocketSettings BBR_250MBIT_200MS = WanSocketSettings.forLink(250_000_000L, Duration.ofMillis(200), true, "bbr");

  private EventLoopGroup group;
  private Channel server;
  private Channel client;
  private final CompletableFuture<Channel> accepted = new CompletableFuture<>();
  private final AtomicLong received = new AtomicLong();

  @BeforeEach
  void requireEpoll() {
    assumeTrue(Epoll.isAvailable(), () -> "native epoll unavailable: " + Epoll.unavailabilityCause());
  }

  @AfterEach
  void close() {
    if (client != null) {
      client.close().syncUninterruptibly();
    }
    if (server != null) {
      server.close().syncUninterruptibly();
    }
    if (group != null) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  @Test
  void bbrIsSetAndReadBackOnBothEnds() throws Exception {
    assumeTrue(kernelHas("bbr"), "kernel lacks bbr (net.ipv4.tcp_available_congestion_control)");
    connectEpoll(BBR_250MBIT_200MS);

    TuningResult dialled = SocketTuning.applyWan(client, BBR_250MBIT_200MS);
    TuningResult acceptedSide = SocketTuning.applyWan(accepted.get(5, TimeUnit.SECONDS), BBR_250MBIT_200MS);

    assertEquals("bbr", dialled.congestionControl());
    assertTrue(dialled.congestionControlApplied());
    assertEquals("bbr", SocketTuning.congestionControl(client));
    assertEquals("bbr", acceptedSide.congestionControl());
  }

  @Test
  void otherCongestionControlIsReadBackToo() throws Exception {
    assumeTrue(kernelHas("reno"), "kernel lacks reno");
    WanSocketSettings reno = new WanSocketSettings("reno", 1 << 20, 1 << 20, 0);
    connectEpoll(reno);
    assertEquals("reno", SocketTuning.applyWan(client, reno).congestionControl());
    assertEquals("reno", SocketTuning.congestionControl(client));
  }

  @Test
  void missingCongestionControlIsAWarningNamingTheSysctl() throws Exception {
    WanSocketSettings missing = new WanSocketSettings("nosuchcc", 1 << 20, 1 << 20, 0);
    connectEpoll(missing);

    TuningResult r = SocketTuning.applyWan(client, missing);

    assertFalse(r.congestionControlApplied());
    assertFalse(r.congestionControl().equals("nosuchcc"));
    assertTrue(r.warnings().stream().anyMatch(w -> w.contains("net.ipv4.tcp_available_congestion_control")), r.warnings()::toString);
  }

  @Test
  void pacingCapIsReadBack() throws Exception {
    connectEpoll(BBR_250MBIT_200MS);
    TuningResult r = SocketTuning.applyWan(client, BBR_250MBIT_200MS);
    assertEquals(30_000_000L, r.pacingRate());
  }

  @Test
  void tcpInfoIsDecodedWithTheCongestionStateAndTheSegmentsInFlight() {
    java.nio.ByteBuffer raw = java.nio.ByteBuffer.allocate(232).order(java.nio.ByteOrder.nativeOrder());
    raw.put(1, (byte) TcpInfoSnapshot.CA_RECOVERY);
    raw.put(7, (byte) 1); // delivery_rate_app_limited
    raw.putInt(16, 1448); // snd_mss
    raw.putInt(24, 17_000); // unacked
    raw.putInt(28, 11_000); // sacked
    raw.putInt(32, 150); // lost
    raw.putInt(36, 100); // retrans
    raw.putInt(68, 301_000); // rtt
    raw.putInt(80, 12_500); // snd_cwnd
    raw.putInt(144, 65_536); // notsent_bytes
    raw.putInt(148, 150_000); // min_rtt
    raw.putLong(160, 30_000_000L); // delivery_rate
    TcpInfoSnapshot i = SocketTuning.parseTcpInfo(raw);
    assertEquals(TcpInfoSnapshot.CA_RECOVERY, i.caState());
    assertEquals(17_000 - 11_000 - 150 + 100, i.inFlightSegments());
    assertEquals(1448, i.sendMss());
    assertEquals(150_000, i.minRttMicros());
    assertEquals(301_000, i.rttMicros());
    assertEquals(12_500, i.sendCwndSegments());
    assertEquals(65_536, i.notSentBytes());
    assertEquals(30_000_000L, i.deliveryRateBytesPerSecond());
    assertTrue(i.deliveryRateAppLimited());
    // an older kernel's shorter struct: the fields it lacks read as 0
    TcpInfoSnapshot old = SocketTuning.parseTcpInfo(java.nio.ByteBuffer.allocate(104).order(java.nio.ByteOrder.nativeOrder()).put(1, (byte) 0));
    assertEquals(TcpInfoSnapshot.CA_OPEN, old.caState());
    assertEquals(0, old.notSentBytes());
  }

  @Test
  void unsentBytesInTheKernelAreBounded() throws Exception {
    connectEpoll(BBR_250MBIT_200MS);
    SocketTuning.applyWan(client, BBR_250MBIT_200MS);
    // 50 MB send buffer / 32: a quarter of the 6.25 MB bandwidth-delay product
    assertEquals(1_562_500L, SocketTuning.notSentLowWatermark(BBR_250MBIT_200MS));
    assertEquals(1_562_500L, client.config().getOption(EpollChannelOption.TCP_NOTSENT_LOWAT));
  }

  @Test
  void buffersAreForcedPastTheSysctlCapsWithNetAdmin() throws Exception {
    assumeTrue(LinuxCapabilities.has(LinuxCapabilities.CAP_NET_ADMIN), "needs CAP_NET_ADMIN for SO_*BUFFORCE");
    connectEpoll(BBR_250MBIT_200MS);
    TuningResult r = SocketTuning.applyWan(client, BBR_250MBIT_200MS);
    // Linux reports twice the size asked for.
    assertEquals(2 * BBR_250MBIT_200MS.sendBufferBytes(), r.sendBuffer());
    assertEquals(2 * BBR_250MBIT_200MS.receiveBufferBytes(), r.receiveBuffer());
    assertTrue(r.warnings().isEmpty(), r.warnings()::toString);
  }

  @Test
  void bbrBandwidthIsReadAndARestartKeepsBbr() throws Exception {
    assumeTrue(kernelHas("bbr"), "kernel lacks bbr (net.ipv4.tcp_available_congestion_control)");
    connectEpoll(BBR_250MBIT_200MS);
    SocketTuning.applyWan(client, BBR_250MBIT_200MS);
    int size = 4 << 20;
    client.writeAndFlush(Unpooled.wrappedBuffer(new byte[size])).sync();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (received.get() < size && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertEquals(size, received.get());
    assertTrue(SocketTuning.bbrBandwidth(client).orElse(0) > 0, "BBR has an estimate after 4 MiB");

    assertTrue(SocketTuning.restartCongestionControl(client, "bbr"));
    assertEquals("bbr", SocketTuning.congestionControl(client));
    // The connection still carries bytes after the restart.
    client.writeAndFlush(Unpooled.wrappedBuffer(new byte[size])).sync();
    deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (received.get() < 2L * size && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertEquals(2L * size, received.get());
  }

  @Test
  void pacingCapIsSetAndReadAndBbrReportsItsGain() throws Exception {
    assumeTrue(kernelHas("bbr"), "kernel lacks bbr (net.ipv4.tcp_available_congestion_control)");
    WanSocketSettings uncapped = new WanSocketSettings("bbr", 1 << 20, 1 << 20, 0);
    connectEpoll(uncapped);
    SocketTuning.applyWan(client, uncapped);
    assertEquals(0, SocketTuning.maxPacingRate(client), "no cap configured");
    int gain = SocketTuning.bbrPacingGain(client).orElseThrow();
    // STARTUP 739, DRAIN 88, PROBE_BW 192-320, PROBE_RTT 256 (units of 256)
    assertTrue(gain >= 88 && gain <= 739, "gain " + gain);
    int minRtt = SocketTuning.bbrMinRttMicros(client).orElseThrow();
    assertTrue(minRtt > 0 && minRtt < 1_000_000, "min RTT " + minRtt + " us on loopback");
    assertTrue(SocketTuning.setMaxPacingRate(client, 12_345_678));
    assertEquals(12_345_678, SocketTuning.maxPacingRate(client));
  }

  @Test
  void noBbrBandwidthWithoutBbr() throws Exception {
    assumeTrue(kernelHas("reno"), "kernel lacks reno");
    WanSocketSettings reno = new WanSocketSettings("reno", 1 << 20, 1 << 20, 0);
    connectEpoll(reno);
    SocketTuning.applyWan(client, reno);
    assertTrue(SocketTuning.bbrBandwidth(client).isEmpty());
  }

  @Test
  void tcpInfoHasRttAndAckedBytesAfterTraffic() throws Exception {
    connectEpoll(BBR_250MBIT_200MS);
    int size = 1 << 20;
    byte[] data = new byte[size];
    Arrays.fill(data, (byte) 7);
    client.writeAndFlush(Unpooled.wrappedBuffer(data)).sync();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (received.get() < size && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertEquals(size, received.get());

    TcpInfoSnapshot info = SocketTuning.tcpInfo(client).orElseThrow();
    assertTrue(info.rttMicros() > 0, info::toString);
    assertTrue(info.sendCwndSegments() > 0, info::toString);
    assertTrue(info.bytesAcked() >= size, info::toString);
    assertTrue(info.deliveryRateBytesPerSecond() > 0, info::toString);
  }

  @Test
  void nioChannelsGetWarningsNotFailures() throws Exception {
    group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    ServerBootstrap sb = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class).childHandler(sink());
    SocketTuning.configureServerBootstrap(sb, BBR_250MBIT_200MS);
    server = sb.bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    Bootstrap b = new Bootstrap().group(group).channel(NioSocketChannel.class).handler(new ChannelInboundHandlerAdapter());
    SocketTuning.configureBootstrap(b, BBR_250MBIT_200MS);
    client = b.connect(server.localAddress()).sync().channel();

    TuningResult r = SocketTuning.applyWan(client, BBR_250MBIT_200MS);

    assertEquals("unknown", r.congestionControl());
    assertFalse(r.congestionControlApplied());
    assertFalse(r.warnings().isEmpty());
    assertTrue(SocketTuning.tcpInfo(client).isEmpty());
    assertEquals("unknown", SocketTuning.congestionControl(client));
  }

  private void connectEpoll(WanSocketSettings s) throws Exception {
    group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
    ServerBootstrap sb = new ServerBootstrap().group(group).channel(EpollServerSocketChannel.class).childHandler(sink());
    SocketTuning.configureServerBootstrap(sb, s);
    server = sb.bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    Bootstrap b = new Bootstrap().group(group).channel(EpollSocketChannel.class).handler(new ChannelInboundHandlerAdapter());
    SocketTuning.configureBootstrap(b, s);
    client = b.connect(server.localAddress()).sync().channel();
  }

  private ChannelInitializer<SocketChannel> sink() {
    return new ChannelInitializer<>() {
      @Override
      protected void initChannel(SocketChannel ch) {
        accepted.complete(ch);
        ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
          @Override
          public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf buf = (ByteBuf) msg;
            received.addAndGet(buf.readableBytes());
            buf.release();
          }
        });
      }
    };
  }

  private static boolean kernelHas(String cc) throws Exception {
    Path available = Path.of("/proc/sys/net/ipv4/tcp_available_congestion_control");
    return Files.exists(available) && Arrays.asList(Files.readString(available).trim().split("\\s+")).contains(cc);
  }
}
