package io.tcpopt.controller.handoff;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.util.ReferenceCountUtil;
import io.tcpopt.common.policy.Action;
import io.tcpopt.common.policy.Verdict;
import io.tcpopt.common.relay.DirectUpstream;
import io.tcpopt.common.relay.FlowRecorder;
import io.tcpopt.common.relay.LegBridge;
import io.tcpopt.common.transport.EarlyInput;
import io.tcpopt.common.transport.EpollHalfCloseWorkaround;
import io.tcpopt.common.transport.Legs;
import io.tcpopt.common.transport.NettyTransport;
import io.tcpopt.controller.distribution.FlowDispatcher;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller's interception listeners in external mode. Each accepted connection is decided by
 * the {@link FlowDispatcher} on the event loop (local memory only). An optimized flow is connected
 * to its service node's handoff address, which first receives a PROXY protocol v2 header with the
 * client address and the original destination, then the client's bytes; everything else connects
 * directly to the destination (or is reset, for {@code drop}); an unreachable service node fails
 * open to the destination. Either way the client leg is joined to that socket by a {@link
 * LegBridge} over a {@link DirectUpstream} on the client's event loop: FIN is carried as a
 * half-close both ways, resets as resets, and the client is not read until the socket is up (but
 * for what epoll reads with an early FIN, held until the bridge joins).
 */
public final class HandoffForwarder implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HandoffForwarder.class);
  private static final WriteBufferWaterMark WATERMARKS = new WriteBufferWaterMark(256 << 10, 1 << 20);
  /** No idle timeout here: the service node's legs time out, a passed-through flow lives as long as its end hosts keep it. */
  private static final Duration NO_IDLE_TIMEOUT = Duration.ZERO;

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
    EventLoopGroup group = NettyTransport.group(2, "tcpopt-handoff");
    Bootstrap legs = Legs.client(WATERMARKS, connectTimeout);
    List<Channel> bound = new ArrayList<>();
    try {
      for (HandoffListener l : config) {
        ServerBootstrap b = Legs.server(group, group, WATERMARKS)
            .childHandler(new ChannelInitializer<Channel>() {
              @Override
              protected void initChannel(Channel ch) {
                EpollHalfCloseWorkaround.install(ch);
                ch.pipeline().addLast(new FrontendHandler(l.target(), dispatcher, handoffAddress, legs));
              }
            });
        Channel ch = b.bind(l.listen()).syncUninterruptibly().channel();
        log.info("handoff listener {} -> {}", ch.localAddress(), l.target());
        bound.add(ch);
      }
    } catch (RuntimeException e) {
      bound.forEach(Channel::close);
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
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
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
  }

  /**
   * Decides an accepted client, then bridges it to the service node's handoff listener or to the
   * destination. Until the bridge joins the client (a connect later: the handoff connection's), it
   * holds what the client sent: epoll reads up to a FIN that has arrived, whatever the auto-read
   * setting, so a client that sends its request and FIN at once has both read into this handler,
   * which hands them on to the bridge, the FIN last.
   */
  private static final class FrontendHandler extends ChannelInboundHandlerAdapter {
    private final InetSocketAddress target;
    private final FlowDispatcher dispatcher;
    private final Function<String, Optional<InetSocketAddress>> handoffAddress;
    private final Bootstrap legs;
    private final EarlyInput early = new EarlyInput();
    private ChannelHandlerContext ctx;

    FrontendHandler(InetSocketAddress target, FlowDispatcher dispatcher, Function<String, Optional<InetSocketAddress>> handoffAddress,
        Bootstrap legs) {
      this.target = target;
      this.dispatcher = dispatcher;
      this.handoffAddress = handoffAddress;
      this.legs = legs;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      this.ctx = ctx;
      Channel client = ctx.channel();
      InetSocketAddress source = (InetSocketAddress) client.remoteAddress();
      Verdict v = dispatcher.decide(source, target);
      if (v.action() == Action.DROP) {
        log.debug("flow {} -> {} dropped: {}", source, target, v.reason());
        Legs.reset(client); // as a service node drops: the client sees a reset, not an empty answer
        return;
      }
      Optional<InetSocketAddress> node =
          v.action() == Action.OPTIMIZE && v.serviceNode() != null ? handoffAddress.apply(v.serviceNode()) : Optional.empty();
      if (node.isEmpty()) {
        log.debug("flow {} -> {} passes through: {}", source, target, v.reason());
        passThrough(client);
        return;
      }
      ChannelFuture handoff = Legs.connect(legs, client.eventLoop(), node.get(), null);
      handoff.addListener(done -> {
        if (done.isSuccess()) {
          ByteBuf header = ProxyV2Header.encode(client.alloc(), source, target);
          bridge(client, DirectUpstream.over(client.eventLoop(), handoff, "handoff connection to " + v.serviceNode(), WATERMARKS, header));
        } else {
          log.warn("service node {} handoff at {} unreachable ({}); flow {} -> {} passes through", v.serviceNode(), node.get(),
              done.cause().toString(), source, target);
          passThrough(client);
        }
      });
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof ByteBuf b) {
        early.add(b);
      } else {
        ReferenceCountUtil.release(msg);
      }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
      if (evt instanceof ChannelInputShutdownEvent) {
        early.fin();
      } else {
        ctx.fireUserEventTriggered(evt);
      }
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
      early.release(); // the client went away before its bridge joined it, or it was handed on
    }

    private void passThrough(Channel client) {
      ChannelFuture direct = Legs.connect(legs, client.eventLoop(), target, null);
      bridge(client, DirectUpstream.over(client.eventLoop(), direct, "server leg", WATERMARKS, null));
    }

    /** Starts the bridge (its handler goes in after this one at once: same loop), then hands it what the client sent so far. */
    private void bridge(Channel client, DirectUpstream upstream) {
      LegBridge.start(client.newSucceededFuture(), upstream, FlowRecorder.NONE, "client leg", NO_IDLE_TIMEOUT);
      early.handOn(ctx);
      if (client.pipeline().context(this) != null) {
        client.pipeline().remove(this);
      }
    }
  }
}
