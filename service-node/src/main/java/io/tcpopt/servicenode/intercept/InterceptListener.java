package io.tcpopt.servicenode.intercept;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.EpollChannelOption;
import io.tcpopt.common.transport.EpollHalfCloseWorkaround;
import io.tcpopt.common.transport.Legs;
import io.tcpopt.common.transport.NettyTransport;
import java.net.InetSocketAddress;

/**
 * One listening socket that intercepts flows: explicit (every accepted flow goes to a fixed
 * target) or transparent (IP_TRANSPARENT; the accepted child's local address is the original
 * destination). Accepted clients do not read until the interceptor joins them to a leg.
 */
public final class InterceptListener implements AutoCloseable {
  private final Channel server;

  private InterceptListener(Channel server) {
    this.server = server;
  }

  /** Binds an explicit listener sending every flow to {@code target} (site may be null). */
  public static InterceptListener explicit(InetSocketAddress listen, InetSocketAddress target, String site, EventLoopGroup boss,
      EventLoopGroup workers, WriteBufferWaterMark watermarks, FlowInterceptor interceptor) throws InterruptedException {
    ServerBootstrap b = base(boss, workers, watermarks, (ch) -> interceptor.intercepted(ch, (InetSocketAddress) ch.remoteAddress(), target, site));
    return new InterceptListener(b.bind(listen).sync().channel());
  }

  /** Binds the transparent listener (Linux epoll only; needs CAP_NET_ADMIN). */
  public static InterceptListener transparent(InetSocketAddress listen, EventLoopGroup boss, EventLoopGroup workers,
      WriteBufferWaterMark watermarks, FlowInterceptor interceptor) throws InterruptedException {
    if (!NettyTransport.isEpoll()) {
      throw new IllegalStateException("transparent interception needs Linux with the native epoll transport");
    }
    ServerBootstrap b = base(boss, workers, watermarks, (ch) -> interceptor.intercepted(ch, (InetSocketAddress) ch.remoteAddress(),
        (InetSocketAddress) ch.localAddress(), null));
    b.option(EpollChannelOption.IP_TRANSPARENT, true);
    return new InterceptListener(b.bind(listen).sync().channel());
  }

  private interface Accepted {
    void accepted(Channel ch);
  }

  private static ServerBootstrap base(EventLoopGroup boss, EventLoopGroup workers, WriteBufferWaterMark watermarks, Accepted accepted) {
    return Legs.server(boss, workers, watermarks)
        .childHandler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            EpollHalfCloseWorkaround.install(ch);
            ch.pipeline().addLast("intercept", new ChannelInboundHandlerAdapter() {
              @Override
              public void channelActive(ChannelHandlerContext ctx) {
                ctx.pipeline().remove(this);
                accepted.accepted(ctx.channel());
              }
            });
          }
        });
  }

  public InetSocketAddress localAddress() {
    return (InetSocketAddress) server.localAddress();
  }

  @Override
  public void close() {
    server.close().syncUninterruptibly();
  }
}
