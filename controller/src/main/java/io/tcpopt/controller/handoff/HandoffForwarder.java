package io.tcpopt.controller.handoff;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.haproxy.HAProxyCommand;
import io.netty.handler.codec.haproxy.HAProxyMessage;
import io.netty.handler.codec.haproxy.HAProxyMessageEncoder;
import io.netty.handler.codec.haproxy.HAProxyProtocolVersion;
import io.netty.handler.codec.haproxy.HAProxyProxiedProtocol;
import io.tcpopt.controller.distribution.FlowDispatcher;
import io.tcpopt.controller.distribution.FlowVerdict;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller's interception listeners in external mode. Each accepted connection is decided by
 * the {@link FlowDispatcher} on the event loop (local memory only). An optimized flow is connected
 * to its service node's handoff address, which first receives a PROXY protocol v2 header with the
 * client address and the original destination, then the client's bytes; everything else connects
 * directly to the destination (or is closed, for {@code drop}). The second leg runs on the first
 * leg's event loop and reading is paused until it is connected, so no byte is buffered twice.
 */
public final class HandoffForwarder implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HandoffForwarder.class);
  private static final WriteBufferWaterMark WATERMARKS = new WriteBufferWaterMark(256 << 10, 1 << 20);

  private final EventLoopGroup group;
  private final List<Channel> listeners;

  private HandoffForwarder(EventLoopGroup group, List<Channel> listeners) {
    this.group = group;
    this.listeners = listeners;
  }

  /**
   * Binds every listener.
   *
   * @param handoffAddress the handoff address of a service node by name, empty when unknown or
   *     when it has none (then the flow passes through)
   */
  public static HandoffForwarder start(
      List<HandoffListener> config, FlowDispatcher dispatcher, Function<String, Optional<InetSocketAddress>> handoffAddress,
      Duration connectTimeout) {
    EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    List<Channel> bound = new ArrayList<>();
    try {
      for (HandoffListener l : config) {
        ServerBootstrap b =
            new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.AUTO_READ, false)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, WATERMARKS)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ch.pipeline().addLast(new FrontendHandler(l.target(), dispatcher, handoffAddress, connectTimeout));
                  }
                });
        Channel ch = b.bind(l.listen()).syncUninterruptibly().channel();
        log.info("handoff listener {} -> {}", ch.localAddress(), l.target());
        bound.add(ch);
      }
    } catch (RuntimeException e) {
      bound.forEach(Channel::close);
      group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
      throw new IllegalStateException("cannot bind handoff listener: " + e.getMessage(), e);
    }
    return new HandoffForwarder(group, bound);
  }

  /** Bound addresses, in configuration order. */
  public List<InetSocketAddress> addresses() {
    List<InetSocketAddress> out = new ArrayList<>();
    listeners.forEach(c -> out.add((InetSocketAddress) c.localAddress()));
    return out;
  }

  @Override
  public void close() {
    listeners.forEach(c -> c.close().syncUninterruptibly());
    group.shutdownGracefully(0, 2, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
  }

  /** The client leg: decides, connects the second leg, then relays. */
  private static final class FrontendHandler extends ChannelInboundHandlerAdapter {
    private final InetSocketAddress target;
    private final FlowDispatcher dispatcher;
    private final Function<String, Optional<InetSocketAddress>> handoffAddress;
    private final Duration connectTimeout;

    FrontendHandler(
        InetSocketAddress target, FlowDispatcher dispatcher, Function<String, Optional<InetSocketAddress>> handoffAddress,
        Duration connectTimeout) {
      this.target = target;
      this.dispatcher = dispatcher;
      this.handoffAddress = handoffAddress;
      this.connectTimeout = connectTimeout;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      Channel client = ctx.channel();
      InetSocketAddress source = (InetSocketAddress) client.remoteAddress();
      FlowVerdict v = dispatcher.decide(source, target);
      if (v.kind() == FlowVerdict.Kind.DROP) {
        log.debug("flow {} -> {} dropped: {}", source, target, v.reason());
        client.close();
        return;
      }
      Optional<InetSocketAddress> node =
          v.kind() == FlowVerdict.Kind.OPTIMIZE && v.serviceNode() != null ? handoffAddress.apply(v.serviceNode()) : Optional.empty();
      if (node.isPresent()) {
        connect(client, node.get(), source, v.serviceNode(), true);
      } else {
        log.debug("flow {} -> {} passes through: {}", source, target, v.reason());
        connect(client, target, source, null, false);
      }
    }

    private void connect(Channel client, InetSocketAddress to, InetSocketAddress source, String node, boolean handoff) {
      Bootstrap b =
          new Bootstrap()
              .group(client.eventLoop())
              .channel(NioSocketChannel.class)
              .option(ChannelOption.AUTO_READ, false)
              .option(ChannelOption.WRITE_BUFFER_WATER_MARK, WATERMARKS)
              .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) connectTimeout.toMillis())
              .handler(new RelayHandler(client));
      ChannelFuture f = b.connect(to);
      f.addListener((ChannelFutureListener) done -> {
        if (!done.isSuccess()) {
          if (handoff) {
            log.warn("service node {} handoff at {} unreachable ({}); flow {} -> {} passes through",
                node, to, done.cause().toString(), source, target);
            connect(client, target, source, null, false);
          } else {
            client.close();
          }
          return;
        }
        Channel server = done.channel();
        if (handoff) {
          server.pipeline().addFirst("proxy-v2", HAProxyMessageEncoder.INSTANCE);
          server.write(header(source, target));
          server.pipeline().remove("proxy-v2");
        }
        client.pipeline().remove(this);
        client.pipeline().addLast(new RelayHandler(server));
        server.config().setAutoRead(true);
        client.config().setAutoRead(true);
        server.flush();
        client.closeFuture().addListener(c -> RelayHandler.closeOnFlush(server));
      });
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }

  /** The PROXY v2 header for a flow from {@code source} to {@code destination}. */
  static HAProxyMessage header(InetSocketAddress source, InetSocketAddress destination) {
    boolean v4 = source.getAddress() instanceof Inet4Address && destination.getAddress() instanceof Inet4Address;
    return new HAProxyMessage(
        HAProxyProtocolVersion.V2,
        HAProxyCommand.PROXY,
        v4 ? HAProxyProxiedProtocol.TCP4 : HAProxyProxiedProtocol.TCP6,
        source.getAddress().getHostAddress(),
        destination.getAddress().getHostAddress(),
        source.getPort(),
        destination.getPort());
  }
}
