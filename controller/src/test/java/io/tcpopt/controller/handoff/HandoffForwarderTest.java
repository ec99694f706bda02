package io.tcpopt.controller.handoff;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.haproxy.HAProxyMessage;
import io.netty.handler.codec.haproxy.HAProxyMessageDecoder;
import io.netty.handler.codec.haproxy.HAProxyProtocolVersion;
import io.tcpopt.controller.distribution.FlowDispatcher;
import io.tcpopt.controller.policy.ActivePolicy;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A controller's handoff listener in front of a fake external service node (a PROXY v2 decoder
 * that echoes) and a plain echo server standing for the real destination. Loopback only.
 */
class HandoffForwarderTest {
  private EventLoopGroup group;
  private Channel serviceNode;
  private Channel destination;
  private final BlockingQueue<HAProxyMessageFields> headers = new LinkedBlockingQueue<>();
  private final BlockingQueue<String> destinationHits = new LinkedBlockingQueue<>();
  private final AtomicReference<ActivePolicy> policy = new AtomicReference<>();
  private HandoffForwarder forwarder;

  record HAProxyMessageFields(HAProxyProtocolVersion version, String source, int sourcePort, String destination, int destinationPort) {}

  @BeforeEach
  void start() {
    group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    serviceNode = echoServer(true);
    destination = echoServer(false);
  }

  @AfterEach
  void stop() {
    if (forwarder != null) {
      forwarder.close();
    }
    serviceNode.close().syncUninterruptibly();
    destination.close().syncUninterruptibly();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  private Channel echoServer(boolean proxyProtocol) {
    return new ServerBootstrap()
        .group(group)
        .channel(NioServerSocketChannel.class)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            if (proxyProtocol) {
              ch.pipeline().addLast(new HAProxyMessageDecoder());
            } else {
              destinationHits.add(ch.remoteAddress().toString());
            }
            ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
              @Override
              public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (msg instanceof HAProxyMessage m) {
                  headers.add(new HAProxyMessageFields(m.protocolVersion(), m.sourceAddress(), m.sourcePort(),
                      m.destinationAddress(), m.destinationPort()));
                  m.release();
                  return;
                }
                ctx.writeAndFlush(msg); // the buffer's ownership moves to the write
              }
            });
          }
        })
        .bind(new InetSocketAddress("127.0.0.1", 0))
        .syncUninterruptibly()
        .channel();
  }

  private void startForwarder(String action) {
    startForwarder(action, (InetSocketAddress) serviceNode.localAddress());
  }

  private void startForwarder(String action, InetSocketAddress handoff) {
    int port = ((InetSocketAddress) destination.localAddress()).getPort();
    policy.set(LoopbackDispatch.policy(port, action));
    FlowDispatcher dispatcher = LoopbackDispatch.dispatcher(policy::get);
    forwarder = HandoffForwarder.start(
        List.of(new HandoffListener(new InetSocketAddress("127.0.0.1", 0), (InetSocketAddress) destination.localAddress())),
        dispatcher, name -> name.equals("sn-ext") ? Optional.of(handoff) : Optional.empty(), Duration.ofSeconds(2));
  }

  /** Sends {@code size} random bytes through the listener and returns what came back. */
  private byte[][] roundTrip(int size, Socket[] socket) throws Exception {
    byte[] sent = new byte[size];
    new Random(42).nextBytes(sent);
    try (Socket s = new Socket()) {
      socket[0] = s;
      s.connect(forwarder.addresses().get(0), 2000);
      s.setSoTimeout(5000);
      OutputStream out = s.getOutputStream();
      InputStream in = s.getInputStream();
      byte[] received = new byte[size];
      Thread writer = new Thread(() -> {
        try {
          out.write(sent);
          out.flush();
        } catch (Exception e) {
          // the read side reports the failure
        }
      });
      writer.start();
      int n = 0;
      while (n < size) {
        int r = in.read(received, n, size - n);
        if (r < 0) {
          break;
        }
        n += r;
      }
      writer.join(5000);
      return new byte[][] {sha256(sent), sha256(java.util.Arrays.copyOf(received, n))};
    }
  }

  private static byte[] sha256(byte[] b) throws Exception {
    return MessageDigest.getInstance("SHA-256").digest(b);
  }

  @Test
  void optimizedFlowsReachTheServiceNodeWithTheOriginalAddressesInProxyV2() throws Exception {
    startForwarder(LoopbackDispatch.OPTIMIZE);
    Socket[] client = new Socket[1];
    byte[][] digests = roundTrip(4 << 20, client);
    assertArrayEquals(digests[0], digests[1], "every byte relayed through the service node and back");
    HAProxyMessageFields h = headers.poll(5, TimeUnit.SECONDS);
    assertNotNull(h, "PROXY v2 header received");
    assertEquals(HAProxyProtocolVersion.V2, h.version());
    assertEquals("127.0.0.1", h.source());
    assertEquals(client[0].getLocalPort(), h.sourcePort(), "client's own port");
    InetSocketAddress dst = (InetSocketAddress) destination.localAddress();
    assertEquals(dst.getAddress().getHostAddress(), h.destination());
    assertEquals(dst.getPort(), h.destinationPort(), "original destination");
    assertNull(destinationHits.poll(), "the destination is reached by the service node, not the controller");
  }

  @Test
  void passThroughFlowsGoStraightToTheDestination() throws Exception {
    startForwarder("pass-through: {}");
    byte[][] digests = roundTrip(256 << 10, new Socket[1]);
    assertArrayEquals(digests[0], digests[1]);
    assertNotNull(destinationHits.poll(5, TimeUnit.SECONDS));
    assertNull(headers.poll());
  }

  @Test
  void anUnreachableServiceNodeFailsOpen() throws Exception {
    // Port 1 on loopback refuses connections and, being below the ephemeral range, cannot be
    // reached by a TCP self-connect (which a just-closed ephemeral port can).
    startForwarder(LoopbackDispatch.OPTIMIZE, new InetSocketAddress("127.0.0.1", 1));
    byte[][] digests = roundTrip(64 << 10, new Socket[1]);
    assertArrayEquals(digests[0], digests[1]);
    assertNotNull(destinationHits.poll(5, TimeUnit.SECONDS), "passed through to the destination");
  }

  /** As at a service node (FlowRouter): a dropped client sees a reset, never a clean end of an empty answer. */
  @Test
  void droppedFlowsAreReset() throws Exception {
    startForwarder("drop: {}");
    try (Socket s = new Socket()) {
      // The reset may beat the end of connect() on loopback: either way the client sees it.
      assertThrows(SocketException.class, () -> {
        s.connect(forwarder.addresses().get(0), 2000);
        s.setSoTimeout(5000);
        s.getInputStream().read();
      });
    }
    assertNull(destinationHits.poll());
  }
}
