package io.tcpopt.servicenode.intercept;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.codec.haproxy.HAProxyCommand;
import io.netty.handler.codec.haproxy.HAProxyMessage;
import io.netty.handler.codec.haproxy.HAProxyMessageDecoder;
import io.netty.handler.codec.haproxy.HAProxyProtocolVersion;
import io.netty.handler.codec.haproxy.HAProxyProxiedProtocol;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.tcpopt.common.transport.EarlyInput;
import io.tcpopt.common.transport.EpollHalfCloseWorkaround;
import io.tcpopt.common.transport.Legs;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The external-mode handoff listener: a controller that intercepted a flow connects here and sends
 * a PROXY protocol v2 header (TCP over IPv4 or IPv6, command PROXY) naming the client and the
 * original destination, then the client's bytes. Only connections from allowed controller
 * addresses are accepted; a connection whose header is missing, invalid, not v2, or slower than
 * the header timeout is closed with a logged reason. After the header the connection is handed to
 * the interceptor exactly like an intercepted client, with the header's addresses; bytes that
 * arrived together with the header are passed on first, and then the controller's FIN when it came
 * with them (a client that sent its request and FIN at once: epoll reads up to the FIN whatever the
 * auto-read setting, and the bridge, not in the pipeline yet, would otherwise never learn of it).
 */
public final class HandoffListener implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HandoffListener.class);

  private final Channel server;

  private HandoffListener(Channel server) {
    this.server = server;
  }

  /**
   * Binds the listener.
   *
   * @param allowed which controller addresses may hand flows off
   * @param headerTimeout how long a connection may take to send its PROXY header
   */
  public static HandoffListener bind(InetSocketAddress listen, Predicate<InetAddress> allowed, Duration headerTimeout, EventLoopGroup boss,
      EventLoopGroup workers, WriteBufferWaterMark watermarks, FlowInterceptor interceptor) throws InterruptedException {
    ServerBootstrap b = Legs.server(boss, workers, watermarks)
        .childOption(ChannelOption.AUTO_READ, true) // reads the header, then waits for its bridge
        .childHandler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            EpollHalfCloseWorkaround.install(ch);
            InetSocketAddress from = (InetSocketAddress) ch.remoteAddress();
            if (from == null || !allowed.test(from.getAddress())) {
              log.warn("handoff from {} refused: not an allowed controller address (service-node.interception.handoff.allowed)", from);
              ch.close();
              return;
            }
            ch.pipeline().addLast("proxy-v2", new HAProxyMessageDecoder());
            ch.pipeline().addLast("handoff", new HeaderHandler(headerTimeout, interceptor));
          }
        });
    return new HandoffListener(b.bind(listen).sync().channel());
  }

  public InetSocketAddress localAddress() {
    return (InetSocketAddress) server.localAddress();
  }

  @Override
  public void close() {
    server.close().syncUninterruptibly();
  }

  /** Waits for the header, then hands the connection over. Confined to the child's event loop. */
  private static final class HeaderHandler extends ChannelInboundHandlerAdapter {
    private final Duration headerTimeout;
    private final FlowInterceptor interceptor;
    private final EarlyInput early = new EarlyInput();
    private ScheduledFuture<?> timer;
    private InetSocketAddress client;
    private InetSocketAddress destination;
    private boolean done;

    HeaderHandler(Duration headerTimeout, FlowInterceptor interceptor) {
      this.headerTimeout = headerTimeout;
      this.interceptor = interceptor;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      timer = ctx.executor().schedule(() -> refuse(ctx, "no PROXY v2 header within " + headerTimeout), headerTimeout.toNanos(),
          TimeUnit.NANOSECONDS);
      ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (done) {
        ReferenceCountUtil.release(msg);
        return;
      }
      if (msg instanceof HAProxyMessage) {
        HAProxyMessage m = (HAProxyMessage) msg;
        try {
          String problem = check(m);
          if (problem != null) {
            refuse(ctx, problem);
            return;
          }
          client = new InetSocketAddress(InetAddress.getByName(m.sourceAddress()), m.sourcePort());
          destination = new InetSocketAddress(InetAddress.getByName(m.destinationAddress()), m.destinationPort());
        } catch (java.net.UnknownHostException e) {
          refuse(ctx, "unparsable address in PROXY header: " + e.getMessage());
          return;
        } finally {
          m.release();
        }
        // Stop reading; bytes that came with the header reach this handler once the decoder
        // removes itself, so the handover runs as a task after this read.
        ctx.channel().config().setAutoRead(false);
        ctx.executor().execute(() -> handOver(ctx));
        return;
      }
      if (msg instanceof ByteBuf && client != null) {
        early.add((ByteBuf) msg);
        return;
      }
      ReferenceCountUtil.release(msg);
      refuse(ctx, "data before the PROXY header");
    }

    private static String check(HAProxyMessage m) {
      if (m.protocolVersion() != HAProxyProtocolVersion.V2) {
        return "PROXY protocol " + m.protocolVersion() + " header; only v2 is accepted";
      }
      if (m.command() != HAProxyCommand.PROXY) {
        return "PROXY v2 command " + m.command() + " carries no flow";
      }
      if (m.proxiedProtocol() != HAProxyProxiedProtocol.TCP4 && m.proxiedProtocol() != HAProxyProxiedProtocol.TCP6) {
        return "PROXY v2 protocol " + m.proxiedProtocol() + "; only TCP4 and TCP6 flows are handed off";
      }
      if (m.destinationPort() == 0) {
        return "PROXY v2 header without a destination port";
      }
      return null;
    }

    private void handOver(ChannelHandlerContext ctx) {
      if (done) {
        return;
      }
      Channel ch = ctx.channel();
      if (ch.pipeline().get("proxy-v2") != null) {
        ch.pipeline().remove("proxy-v2"); // forwards what it still holds to this handler's queue
      }
      done = true;
      timer.cancel(false);
      ch.pipeline().remove(this);
      if (!ch.isActive()) {
        early.release();
        return;
      }
      log.debug("handoff from {}: flow {} -> {}", ch.remoteAddress(), client, destination);
      interceptor.intercepted(ch, client, destination, null);
      early.handOn(ch.pipeline());
    }

    private void refuse(ChannelHandlerContext ctx, String reason) {
      if (done) {
        return;
      }
      done = true;
      if (timer != null) {
        timer.cancel(false);
      }
      early.release();
      log.warn("handoff from {} refused: {}", ctx.channel().remoteAddress(), reason);
      ctx.close();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
      if (evt instanceof ChannelInputShutdownEvent && client != null && !done) {
        early.fin(); // handed on after the early bytes, at the handover
        return;
      }
      ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      refuse(ctx, "invalid PROXY v2 header: " + cause.getMessage());
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      if (!done) {
        done = true;
        if (timer != null) {
          timer.cancel(false);
        }
        early.release();
        log.debug("handoff connection from {} closed before its PROXY header", ctx.channel().remoteAddress());
      }
      ctx.fireChannelInactive();
    }
  }
}
