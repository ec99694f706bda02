package io.tcpopt.common.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.ChannelOutputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A leg's FIN on real loopback sockets: the half-close both ways, and what it costs. */
class LegsTest {
  private EventLoopGroup group;
  private ServerSocket endHost;

  @BeforeEach
  void start() throws Exception {
    group = NettyTransport.group(1, "legs-test");
    endHost = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    endHost.setSoTimeout(10_000);
  }

  @AfterEach
  void stop() throws Exception {
    endHost.close();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
  }

  /**
   * An epoll leg's output is shut down without Netty's shutdownOutput, which makes an exception
   * with a stack trace on every call (and fires a ChannelOutputShutdownEvent, seen here): the end
   * host still reads every byte and then EOF, and the leg still reads what the end host sends after.
   */
  @Test
  void aLegsFinCostsNoExceptionAndKeepsItReading() throws Exception {
    Assumptions.assumeTrue(NettyTransport.isEpoll(), "needs the Linux epoll transport (the quiet shutdown is epoll's)");
    List<Object> events = new CopyOnWriteArrayList<>();
    ByteArrayOutputStream read = new ByteArrayOutputStream();
    CountDownLatch inputEnded = new CountDownLatch(1);
    ChannelFuture connect = Legs.connect(Legs.client(new WriteBufferWaterMark(16 * 1024, 64 * 1024), Duration.ofSeconds(5)), group.next(),
        new InetSocketAddress(InetAddress.getLoopbackAddress(), endHost.getLocalPort()), null);
    Socket host = endHost.accept();
    assertTrue(connect.await(5, TimeUnit.SECONDS) && connect.isSuccess(), "leg connected");
    Channel leg = connect.channel();
    assertTrue(leg.config().getOption(ChannelOption.TCP_NODELAY), "every leg has TCP_NODELAY");
    leg.pipeline().addLast(new ChannelInboundHandlerAdapter() {
      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf b = (ByteBuf) msg;
        byte[] bytes = new byte[b.readableBytes()];
        b.readBytes(bytes);
        b.release();
        synchronized (read) {
          read.writeBytes(bytes);
        }
      }

      @Override
      public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        events.add(evt);
        if (evt instanceof ChannelInputShutdownEvent) {
          inputEnded.countDown();
        }
      }
    });
    leg.config().setAutoRead(true);
    byte[] request = "the last bytes before the FIN".getBytes(StandardCharsets.US_ASCII);
    leg.write(Unpooled.wrappedBuffer(request));
    ChannelFuture fin = Legs.shutdownOutputAfterWrites(leg);
    assertTrue(fin.await(5, TimeUnit.SECONDS) && fin.isSuccess(), "FIN sent: " + fin.cause());
    assertTrue(((DuplexChannel) leg).isOutputShutdown(), "Netty knows the leg's output is shut down");

    InputStream in = host.getInputStream();
    assertArrayEquals(request, in.readNBytes(request.length));
    assertEquals(-1, in.read(), "the end host reads EOF after the last byte");

    byte[] answer = "an answer after the FIN".getBytes(StandardCharsets.US_ASCII);
    host.getOutputStream().write(answer);
    host.close();
    assertTrue(inputEnded.await(5, TimeUnit.SECONDS), "the leg read the end host's FIN");
    synchronized (read) {
      assertArrayEquals(answer, read.toByteArray(), "the half-closed leg still reads");
    }
    assertFalse(events.stream().anyMatch(e -> e instanceof ChannelOutputShutdownEvent), "no Netty shutdownOutput (and its exception): " + events);
    leg.close().sync();
  }

  /** Accepted and connected legs have TCP_NODELAY, set by Netty when the socket is made (not set twice). */
  @Test
  void acceptedLegsHaveNoDelay() throws Exception {
    CompletableFuture<Boolean> noDelay = new CompletableFuture<>();
    Channel listener = Legs.server(group, group, new WriteBufferWaterMark(16 * 1024, 64 * 1024))
        .childHandler(new ChannelInboundHandlerAdapter() {
          @Override
          public void channelActive(ChannelHandlerContext ctx) {
            noDelay.complete(ctx.channel().config().getOption(ChannelOption.TCP_NODELAY));
            ctx.close();
          }
        })
        .bind(InetAddress.getLoopbackAddress(), 0).sync().channel();
    try (Socket client = new Socket(InetAddress.getLoopbackAddress(), ((InetSocketAddress) listener.localAddress()).getPort())) {
      assertTrue(noDelay.get(5, TimeUnit.SECONDS), "the accepted leg has TCP_NODELAY");
    } finally {
      listener.close().sync();
    }
  }
}
