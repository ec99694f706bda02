package io.tcpopt.servicenode.reuse;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.ReferenceCountUtil;
import io.tcpopt.common.profile.HttpReuseProfile;
import io.tcpopt.servicenode.proxy.Legs;
import io.tcpopt.servicenode.session.NettyTransport;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * A loopback listener that plays the bridge for tests: each accepted client connection is joined
 * to an {@link HttpReuseUpstream} towards {@code server}, with the bridge's duties (backpressure
 * from credit and writes, half-close both ways, resets) done the simple way.
 */
final class ReuseFront implements AutoCloseable {
  final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  final ReuseMetrics metrics = new ReuseMetrics(registry);
  final ReusePools pools;
  final Queue<HttpReuseUpstream> upstreams = new ConcurrentLinkedQueue<>();
  final Queue<String> resets = new ConcurrentLinkedQueue<>();
  private final EventLoopGroup group;
  private final Channel server;

  ReuseFront(InetSocketAddress target, HttpReuseProfile profile, Duration firstRequestTimeout) throws InterruptedException {
    this(target, profile, firstRequestTimeout, 2);
  }

  /** With {@code loops} event loops: one pool per loop, so one loop makes pool counts exact. */
  ReuseFront(InetSocketAddress target, HttpReuseProfile profile, Duration firstRequestTimeout, int loops) throws InterruptedException {
    group = NettyTransport.group(loops, "reuse-front");
    pools = new ReusePools(new TcpServerConnector(Duration.ofSeconds(5), new WriteBufferWaterMark(32 << 10, 64 << 10)), metrics);
    server = new ServerBootstrap()
        .group(group)
        .channel(NettyTransport.serverChannel())
        .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
        .childOption(ChannelOption.AUTO_READ, true)
        .childHandler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            ch.pipeline().addLast(new Leg(ch, target, profile, firstRequestTimeout));
          }
        })
        .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
  }

  InetSocketAddress address() {
    return (InetSocketAddress) server.localAddress();
  }

  /** Runs {@code r} on every loop and waits: pool state is confined to the loops. */
  int idleConnections() {
    return metrics.idleConnections();
  }

  private final class Leg extends ChannelInboundHandlerAdapter implements HttpReuseUpstream.Listener {
    private final Channel client;
    private final InetSocketAddress target;
    private final HttpReuseProfile profile;
    private final Duration firstRequestTimeout;
    private HttpReuseUpstream upstream;
    private boolean inputEnded;
    private boolean outputShut;

    Leg(Channel client, InetSocketAddress target, HttpReuseProfile profile, Duration firstRequestTimeout) {
      this.client = client;
      this.target = target;
      this.profile = profile;
      this.firstRequestTimeout = firstRequestTimeout;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      ServerConnectionPool pool = pools.pool(profile, ctx.channel().eventLoop());
      upstream = HttpReuseUpstream.start(pool, (InetSocketAddress) client.remoteAddress(), target, PoolKey.PLAIN, this, metrics,
          firstRequestTimeout);
      upstreams.add(upstream);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      upstream.write((ByteBuf) msg);
      if (upstream.credit() == 0) {
        client.config().setAutoRead(false);
      }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
      if (evt instanceof ChannelInputShutdownEvent) {
        inputEnded = true;
        upstream.end();
      }
      ReferenceCountUtil.release(evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      if (!(inputEnded && outputShut)) {
        upstream.reset("client leg closed");
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      upstream.reset("client leg failed: " + cause);
      ctx.close();
    }

    @Override
    public void onData(ByteBuf bytes) {
      int n = bytes.readableBytes();
      client.write(bytes).addListener(f -> {
        if (f.isSuccess()) {
          upstream.consumed(n);
        }
      });
    }

    @Override
    public void onDataComplete() {
      client.flush();
    }

    @Override
    public void onEnd() {
      client.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(f -> {
        if (client.isActive()) {
          ((DuplexChannel) client).shutdownOutput().addListener(s -> {
            outputShut = true;
            if (inputEnded) {
              client.close();
            }
          });
        }
      });
    }

    @Override
    public void onReset(int code, String reason) {
      resets.add(reason);
      Legs.reset(client);
    }

    @Override
    public void onCredit() {
      client.config().setAutoRead(true);
    }
  }

  List<HttpReuseUpstream.Stats> stats() {
    return upstreams.stream().map(HttpReuseUpstream::stats).toList();
  }

  @Override
  public void close() {
    server.close().syncUninterruptibly();
    pools.close();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
