package io.tcpopt.servicenode.intercept;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.util.concurrent.EventExecutor;
import io.tcpopt.common.net.LinuxCapabilities;
import io.tcpopt.common.transport.EpollHalfCloseWorkaround;
import io.tcpopt.common.transport.Legs;
import io.tcpopt.common.transport.NettyTransport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/**
 * One listening address that intercepts flows: explicit (every accepted flow goes to a fixed
 * target) or transparent (IP_TRANSPARENT; the accepted child's local address is the original
 * destination). Accepted clients do not read until the interceptor joins them to a leg.
 *
 * <p>With the epoll transport each worker event loop has its own listening socket on the address
 * (SO_REUSEPORT; the kernel spreads new connections over them by their addresses) and keeps what it
 * accepts: a new flow is accepted, set up and relayed on one thread, with no hand-off from an
 * accept thread to a worker (one thread wake-up less per flow). Before binding them, the address
 * is bound once without SO_REUSEPORT, so that a port another process (a second node, say) already
 * listens on fails the start instead of being shared silently. Other transports: one listener on
 * the accept group, as before.
 */
public final class InterceptListener implements AutoCloseable {
  private final List<Channel> servers;

  private InterceptListener(List<Channel> servers) {
    this.servers = servers;
  }

  /** Binds an explicit listener sending every flow to {@code target} (site may be null). */
  public static InterceptListener explicit(InetSocketAddress listen, InetSocketAddress target, String site, EventLoopGroup boss,
      EventLoopGroup workers, WriteBufferWaterMark watermarks, FlowInterceptor interceptor) throws InterruptedException {
    Accepted accepted = ch -> interceptor.intercepted(ch, (InetSocketAddress) ch.remoteAddress(), target, site);
    return bind(listen, boss, workers, watermarks, accepted, false);
  }

  /** Binds the transparent listener (Linux epoll only; needs CAP_NET_ADMIN). */
  public static InterceptListener transparent(InetSocketAddress listen, EventLoopGroup boss, EventLoopGroup workers,
      WriteBufferWaterMark watermarks, FlowInterceptor interceptor) throws InterruptedException {
    if (!NettyTransport.isEpoll()) {
      throw new IllegalStateException("transparent interception needs Linux with the native epoll transport");
    }
    if (!LinuxCapabilities.mayBindTransparent()) {
      // Checked first: Netty logs a failed IP_TRANSPARENT option as a warning with a stack trace
      // before the bind fails, in front of the one-line error the operator needs.
      throw new IllegalStateException("IP_TRANSPARENT needs CAP_NET_ADMIN or CAP_NET_RAW, which this process lacks");
    }
    Accepted accepted = ch -> interceptor.intercepted(ch, (InetSocketAddress) ch.remoteAddress(), (InetSocketAddress) ch.localAddress(), null);
    return bind(listen, boss, workers, watermarks, accepted, true);
  }

  private interface Accepted {
    void accepted(Channel ch);
  }

  private static InterceptListener bind(InetSocketAddress listen, EventLoopGroup boss, EventLoopGroup workers, WriteBufferWaterMark watermarks,
      Accepted accepted, boolean transparent) throws InterruptedException {
    if (!NettyTransport.isEpoll()) {
      return new InterceptListener(List.of(base(boss, workers, watermarks, accepted).bind(listen).sync().channel()));
    }
    InetSocketAddress address = listen;
    if (listen.getPort() != 0) {
      refuseIfInUse(listen);
    }
    List<Channel> servers = new ArrayList<>();
    try {
      for (EventExecutor e : workers) {
        EventLoop loop = (EventLoop) e;
        ServerBootstrap b = base(loop, loop, watermarks, accepted).option(EpollChannelOption.SO_REUSEPORT, true);
        if (transparent) {
          b.option(EpollChannelOption.IP_TRANSPARENT, true);
        }
        Channel server = b.bind(address).sync().channel();
        servers.add(server);
        if (address.getPort() == 0) { // the others share the port the first one got
          address = new InetSocketAddress(listen.getAddress(), ((InetSocketAddress) server.localAddress()).getPort());
        }
      }
    } catch (InterruptedException | RuntimeException e) {
      servers.forEach(Channel::close);
      throw e;
    }
    return new InterceptListener(List.copyOf(servers));
  }

  /**
   * Binds {@code listen} once without SO_REUSEPORT and lets it go: fails when something already
   * listens there, which the reuse-port group would otherwise share connections with.
   */
  private static void refuseIfInUse(InetSocketAddress listen) {
    try (ServerSocket probe = new ServerSocket()) {
      probe.bind(listen, 1);
    } catch (IOException e) {
      throw new IllegalStateException("cannot listen on " + listen + ": " + e.getMessage() + " (is another node listening there?)", e);
    }
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
    return (InetSocketAddress) servers.get(0).localAddress();
  }

  @Override
  public void close() {
    for (Channel server : servers) {
      server.close().syncUninterruptibly();
    }
  }
}
