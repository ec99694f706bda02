package io.tcpopt.servicenode.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.tcpopt.common.net.SocketTuning;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A learned pacing cap carried to a peer's next connection, on real loopback sockets. */
class LearnedRatesLoopbackTest {
  private static final String PEER = "lrl-branch";

  private final LearnedRates rates = new LearnedRates();

  private EventLoopGroup group;
  private Channel server;
  private final List<Channel> clients = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    assumeTrue(Epoll.isAvailable(), () -> "native epoll unavailable: " + Epoll.unavailabilityCause());
    group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
    server = new ServerBootstrap().group(group).channel(EpollServerSocketChannel.class).childHandler(new ChannelInboundHandlerAdapter())
        .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
  }

  @AfterEach
  void stop() {
    clients.forEach(c -> c.close().syncUninterruptibly());
    if (server != null) {
      server.close().syncUninterruptibly();
    }
    if (group != null) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  private Channel connect() throws Exception {
    Channel c = new Bootstrap().group(group).channel(EpollSocketChannel.class).handler(new ChannelInboundHandlerAdapter())
        .connect(server.localAddress()).sync().channel();
    clients.add(c);
    return c;
  }

  @Test
  void aPeersNextConnectionStartsWithTheCapLearnedOnItsLastOne() throws Exception {
    Channel first = connect();
    LearnedPacing firstLearner = LearnedPacing.forChannel(first, rates, PEER);
    assertNotNull(firstLearner);
    assertEquals(0, firstLearner.cap(), "nothing learned yet: the first connection starts uncapped");
    assertEquals(0, SocketTuning.maxPacingRate(first));
    // what the tick does once BBR left STARTUP: the cap is applied and remembered for the peer
    long cap = firstLearner.observe(30_000_000, 256);
    assertEquals(33_000_000, cap);
    assertEquals(true, SocketTuning.setMaxPacingRate(first, cap));

    Channel redialled = connect();
    LearnedPacing next = LearnedPacing.forChannel(redialled, rates, PEER);
    assertNotNull(next);
    assertEquals(33_000_000, next.cap());
    assertEquals(33_000_000, SocketTuning.maxPacingRate(redialled), "the kernel paces the new socket at the carried cap");

    Channel otherPeer = connect();
    assertEquals(0, LearnedPacing.forChannel(otherPeer, rates, "lrl-elsewhere").cap());
    assertEquals(0, SocketTuning.maxPacingRate(otherPeer), "another peer's connection learns its own");

    // a socket with a configured cap (a link block with pacing) is left to it
    Channel configured = connect();
    SocketTuning.setMaxPacingRate(configured, 31_250_000);
    assertNull(LearnedPacing.forChannel(configured, rates, PEER));
    assertEquals(31_250_000, SocketTuning.maxPacingRate(configured));
  }
}
