package io.tcpopt.servicenode.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.embedded.EmbeddedChannel;
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

/**
 * Issue 8, chaos 5 in the small: an authenticated peer that floods PINGs and OPENs and never
 * reads. Every PING asks for an ACK and every refused OPEN for an RST_STREAM; those answers cannot
 * leave, and the connection is closed once {@link StreamMultiplexer#MAX_UNSENT_BYTES} of them pile
 * up, so the node's memory for it stays bounded.
 */
class NonReadingPeerTest {
  private static final InetSocketAddress SRC = new InetSocketAddress("198.18.1.2", 40000);
  private static final InetSocketAddress DST = new InetSocketAddress("198.19.1.2", 80);

  @Test
  void aPeerThatFloodsAndNeverReadsIsClosed() throws Exception {
    EventLoopGroup group = NettyTransport.group(1, "non-reading-peer");
    SessionSettings settings = new SessionSettings("dc-1", "dc", 1 << 20, 1 << 20, 100, Duration.ofSeconds(5), Duration.ofSeconds(10));
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
      // Bounded: 1 M frames would be ~1 GB of answers, far beyond the limit.
      for (int batch = 0; batch < 1000 && !closed; batch++) {
        EmbeddedChannel enc = new EmbeddedChannel(new FrameCodec(1 << 20));
        for (int i = 0; i < 1000; i++) {
          enc.writeOutbound(i % 10 != 0 ? new OpenFrame(id += 2, id, SRC, DST, 0, Unpooled.EMPTY_BUFFER) : new PingFrame(i, false));
        }
        byte[] bytes = drain(enc);
        try {
          out.write(bytes);
        } catch (IOException e) {
          closed = true;
        }
      }
      assertTrue(closed, "the node closed the connection of a peer that does not read");
      assertTrue(down.await(10, TimeUnit.SECONDS));
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
