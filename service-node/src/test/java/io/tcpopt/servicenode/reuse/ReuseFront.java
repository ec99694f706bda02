package io.tcpopt.servicenode.reuse;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.tcpopt.common.profile.HttpReuseProfile;
import io.tcpopt.common.relay.FlowRecorder;
import io.tcpopt.common.relay.LegBridge;
import io.tcpopt.common.transport.EpollHalfCloseWorkaround;
import io.tcpopt.common.transport.Legs;
import io.tcpopt.common.transport.NettyTransport;
import io.tcpopt.servicenode.flow.HttpReuseFigures;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * A loopback listener whose accepted client legs are joined by the data path's own {@link
 * LegBridge} to an {@link HttpReuseUpstream} towards {@code target}: the far node's reuse without
 * the WAN in between.
 */
final class ReuseFront implements AutoCloseable {
  private static final WriteBufferWaterMark WATERMARKS = new WriteBufferWaterMark(32 << 10, 64 << 10);

  final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  final ReuseMetrics metrics = new ReuseMetrics(registry);
  final ReusePools pools;
  final Queue<HttpReuseUpstream> upstreams = new ConcurrentLinkedQueue<>();
  /** Close reasons of flows that did not complete. */
  final Queue<String> resets = new ConcurrentLinkedQueue<>();
  private final EventLoopGroup group;
  private final Channel server;

  ReuseFront(InetSocketAddress target, HttpReuseProfile profile, Duration firstRequestTimeout) throws InterruptedException {
    this(target, profile, firstRequestTimeout, 2);
  }

  /** With {@code loops} event loops: one pool per loop, so one loop makes pool counts exact. */
  ReuseFront(InetSocketAddress target, HttpReuseProfile profile, Duration firstRequestTimeout, int loops) throws InterruptedException {
    this(target, profile, firstRequestTimeout, loops, false);
  }

  /**
   * With {@code fromClientAddress}, every flow keeps its client's address: server connections come
   * from the address the client connected from (client-address transparency at the far node).
   */
  ReuseFront(InetSocketAddress target, HttpReuseProfile profile, Duration firstRequestTimeout, int loops, boolean fromClientAddress)
      throws InterruptedException {
    group = NettyTransport.group(loops, "reuse-front");
    pools = new ReusePools(new TcpServerConnector(Duration.ofSeconds(5), WATERMARKS), metrics);
    server = Legs.server(group, group, WATERMARKS)
        .childHandler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel client) {
            EpollHalfCloseWorkaround.install(client);
            ServerConnectionPool pool = pools.pool(profile, client.eventLoop());
            InetSocketAddress from = (InetSocketAddress) client.remoteAddress();
            HttpReuseUpstream upstream = fromClientAddress
                ? HttpReuseUpstream.createFromClientAddress(pool, from, target, PoolKey.PLAIN, metrics, firstRequestTimeout)
                : HttpReuseUpstream.create(pool, from, target, PoolKey.PLAIN, metrics, firstRequestTimeout);
            upstreams.add(upstream);
            LegBridge.start(client.newSucceededFuture(), upstream, new FlowRecorder() {
              @Override
              public void closed(String reason) {
                if (!reason.equals("completed")) {
                  resets.add(reason);
                }
              }
            }, "client leg", Duration.ZERO);
          }
        })
        .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
  }

  InetSocketAddress address() {
    return (InetSocketAddress) server.localAddress();
  }

  int idleConnections() {
    return metrics.idleConnections();
  }

  List<HttpReuseFigures> stats() {
    return upstreams.stream().map(HttpReuseUpstream::figures).toList();
  }

  @Override
  public void close() {
    server.close().syncUninterruptibly();
    pools.close();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
