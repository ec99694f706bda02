package io.tcpopt.servicenode.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.internal.PlatformDependent;
import io.tcpopt.common.transport.NettyTransport;
import io.tcpopt.common.transport.ResetCause;
import io.tcpopt.servicenode.trust.PeerAdmission;
import io.tcpopt.servicenode.wire.Frame;
import io.tcpopt.servicenode.wire.FrameCodec;
import io.tcpopt.servicenode.wire.HelloFrame;
import io.tcpopt.servicenode.wire.OpenFrame;
import io.tcpopt.servicenode.wire.PingFrame;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Issue 8, chaos 5: an admitted peer that floods PINGs and OPENs and never reads. Every PING asks
 * for an ACK and every refused OPEN for an RST_STREAM; those answers cannot leave. A fast flood is
 * closed once {@link StreamMultiplexer#MAX_UNSENT_BYTES} of them pile up (memory bounded by volume);
 * a slow one, that never piles up that much, is closed by keepalive: its PINGs are never answered
 * (time bounded: 12 keepalive intervals). Netty's direct memory stays within a few MiB of its level
 * before the flood.
 */
class NonReadingPeerTest {
  private static final InetSocketAddress SRC = new InetSocketAddress("198.18.1.2", 40000);
  private static final InetSocketAddress DST = new InetSocketAddress("198.19.1.2", 80);

  @Test
  void aPeerThatFloodsAndNeverReadsIsClosed() throws Exception {
    flood(Duration.ofSeconds(5), 1000, 0);
  }

  /** 50 OPENs and 5 PINGs a second, never reading: far below the byte limit, so keepalive must close it. */
  @Test
  void aSlowFloodIsClosedByKeepaliveInBoundedTime() throws Exception {
    long ms = flood(Duration.ofMillis(200), 10, 200);
    // 12 unanswered PINGs at 200 ms, plus scheduling slack on a loaded machine
    assertTrue(ms < 12 * 200 + 3_000, "closed after " + ms + " ms");
  }

  /**
   * Floods batches of {@code batchSize} frames (9 OPENs to 1 PING) every {@code pauseMillis}
   * until the node closes the connection; returns how long that took.
   */
  private long flood(Duration keepalive, int batchSize, long pauseMillis) throws Exception {
    EventLoopGroup group = NettyTransport.group(1, "non-reading-peer");
    SessionSettings settings = new SessionSettings("dc-1", "dc", 1 << 20, 1 << 20, 100, keepalive, Duration.ofSeconds(10));
    StreamAcceptor refuseAll = (stream, open) -> {
      // A long reason makes each answer ~1 KB: the limit is reached after a few thousand frames.
      WanStreamUpstream.accepted(stream, open.content()).reset(ResetCause.REFUSED, "refused by the test ".repeat(50));
      open.release();
    };
    CountDownLatch down = new CountDownLatch(1);
    SessionListener listener = new SessionListener() {
      @Override
      public void sessionUp(StreamMultiplexer c) {}

      @Override
      public void sessionDown(StreamMultiplexer c, String reason) {
        down.countDown();
      }
    };
    ServerBootstrap b = new ServerBootstrap().group(group).channel(NettyTransport.serverChannel());
    WanSockets sockets = WanSockets.shallow(WanSockets.NONE);
    sockets.configure(b);
    b.childHandler(new WanChannelInitializer(null, settings, false, refuseAll, listener, sockets, null, (identity, name, site) -> PeerAdmission.admitted(name, site)));
    Channel server = b.bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    try (Socket peer = new Socket()) {
      peer.setReceiveBufferSize(4096);
      peer.connect(server.localAddress());
      OutputStream out = peer.getOutputStream();
      out.write(encode(new HelloFrame(HelloFrame.VERSION, 1 << 20, 1 << 20, 100, "branch-1", "branch")));
      int id = 1;
      boolean closed = false;
      long baseline = PlatformDependent.usedDirectMemory();
      long peak = baseline;
      long start = System.nanoTime();
      // Bounded: 1 M frames would be ~1 GB of answers, far beyond the limit; the slow flood lasts at most 60 s.
      for (int batch = 0; batch < 1000 && !closed && down.getCount() > 0 && System.nanoTime() - start < 60_000_000_000L; batch++) {
        EmbeddedChannel enc = new EmbeddedChannel(new FrameCodec(1 << 20));
        for (int i = 0; i < batchSize; i++) {
          enc.writeOutbound(i % 10 != 0 ? new OpenFrame(id += 2, id, SRC, DST, 0, Unpooled.EMPTY_BUFFER) : new PingFrame(i, false));
        }
        byte[] bytes = drain(enc);
        try {
          out.write(bytes);
        } catch (IOException e) {
          closed = true;
        }
        peak = Math.max(peak, PlatformDependent.usedDirectMemory());
        if (pauseMillis > 0) {
          Thread.sleep(pauseMillis);
        }
      }
      assertTrue(down.await(10, TimeUnit.SECONDS), "the node closed the connection of a peer that does not read");
      long ms = (System.nanoTime() - start) / 1_000_000;
      // The answers it could not send are at most MAX_UNSENT_BYTES; reads and the pool's chunks add a few MiB.
      assertTrue(peak - baseline < StreamMultiplexer.MAX_UNSENT_BYTES + (8 << 20), "direct memory grew by " + (peak - baseline) + " bytes");
      LoggerFactory.getLogger(NonReadingPeerTest.class).info("flood of {} frames per batch closed after {} ms; direct memory +{} KiB at most",
          batchSize, ms, (peak - baseline) >> 10);
      return ms;
    } finally {
      server.close().sync();
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }
  }

  private static byte[] encode(Frame f) {
    EmbeddedChannel enc = new EmbeddedChannel(new FrameCodec(1 << 20));
    enc.writeOutbound(f);
    return drain(enc);
  }

  private static byte[] drain(EmbeddedChannel enc) {
    ByteBuf all = Unpooled.buffer();
    ByteBuf b;
    while ((b = enc.readOutbound()) != null) {
      all.writeBytes(b);
      b.release();
    }
    enc.finishAndReleaseAll();
    byte[] bytes = new byte[all.readableBytes()];
    all.readBytes(bytes);
    all.release();
    assertEquals(0, all.refCnt());
    return bytes;
  }
}
