package io.tcpopt.common.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPromise;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.DefaultChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.internal.PlatformDependent;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.channels.NotYetConnectedException;
import java.time.Duration;

/**
 * TCP legs (the end hosts' sockets of a flow, as opposed to WAN connections): how they are
 * accepted and connected, half-closed and reset. Every leg made here has half-closure allowed,
 * TCP_NODELAY, explicit write watermarks, does not read until its bridge asks, and carries the
 * {@link EpollHalfCloseWorkaround}.
 */
public final class Legs {
  /**
   * Netty's socket channels turn TCP_NODELAY on when they are created, on every platform but
   * Android: setting it again would cost each leg one more system call.
   */
  private static final boolean NO_DELAY_BY_DEFAULT = PlatformDependent.canEnableTcpNoDelayByDefault();

  private Legs() {}

  /**
   * A server bootstrap for accepted legs: the transport's server channel, a deep backlog,
   * half-closure, TCP_NODELAY, {@code watermarks}, no reading until a bridge joins the leg. The
   * caller adds the child handler, which must call {@link EpollHalfCloseWorkaround#install}.
   */
  public static ServerBootstrap server(EventLoopGroup boss, EventLoopGroup workers, WriteBufferWaterMark watermarks) {
    ServerBootstrap b = new ServerBootstrap()
        .group(boss, workers)
        .channel(NettyTransport.serverChannel())
        .option(ChannelOption.SO_BACKLOG, 1024)
        .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
        .childOption(ChannelOption.AUTO_READ, false)
        .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, watermarks);
    return NO_DELAY_BY_DEFAULT ? b : b.childOption(ChannelOption.TCP_NODELAY, true);
  }

  /** A bootstrap for legs this node connects (to a server, or to a handoff listener); see {@link #connect}. */
  public static Bootstrap client(WriteBufferWaterMark watermarks, Duration connectTimeout) {
    Bootstrap b = new Bootstrap()
        .channel(NettyTransport.socketChannel())
        .option(ChannelOption.ALLOW_HALF_CLOSURE, true)
        .option(ChannelOption.AUTO_READ, false)
        .option(ChannelOption.WRITE_BUFFER_WATER_MARK, watermarks)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis()));
    return NO_DELAY_BY_DEFAULT ? b : b.option(ChannelOption.TCP_NODELAY, true);
  }

  /**
   * Connects a leg on {@code loop} (the loop of the flow it belongs to), from {@code local} when not
   * null. The bootstrap's handler is replaced: the leg's pipeline starts empty (but for the
   * workaround) and is filled by whoever joins it once connected.
   */
  public static ChannelFuture connect(Bootstrap bootstrap, EventLoop loop, SocketAddress remote, SocketAddress local) {
    Bootstrap b = bootstrap.clone(loop).handler(new ChannelInboundHandlerAdapter() {
      @Override
      public void handlerAdded(ChannelHandlerContext ctx) {
        EpollHalfCloseWorkaround.install(ctx.channel());
        ctx.pipeline().remove(this);
      }
    });
    return local == null ? b.connect(remote) : b.connect(remote, local);
  }

  /**
   * Whether {@link #moveTo} can move this leg to {@code loop}: an accepted (or connected) leg, open,
   * registered on another loop, on whose loop the caller runs, not reading yet and with nothing in
   * its pipeline (a handler there, TLS termination say, may hold tasks on its current loop).
   */
  public static boolean canMove(ChannelFuture leg, EventLoop loop) {
    Channel ch = leg.channel();
    return leg.isSuccess() && ch.isRegistered() && ch.eventLoop() != loop && ch.eventLoop().inEventLoop() && ch.isActive()
        && !ch.config().isAutoRead() && ch.pipeline().first() == null;
  }

  /**
   * Moves a leg to {@code loop}, the loop of the upstream its bridge joins it to, so that the leg
   * and the upstream share one thread (Netty's proxy discipline): with a leg on another loop every
   * write to it, every completed write and every read hops between threads, each hop a task and an
   * eventfd wake-up (issue 9: on the loopback pair the branch, whose client legs sat on the other
   * loop than the WAN connection, spent 1.6x the DC's CPU per byte).
   *
   * <p>Call it on the leg's loop, for a leg that {@link #canMove} (the caller may add its own
   * handler first). The returned future succeeds on {@code loop}, inside the task that registered
   * the leg there, before that loop waits for any event of the leg; it fails when the leg could not
   * be moved (closed meanwhile, the loop shutting down).
   *
   * <p>The leg may be read while it moves, whether or not reading was asked for: epoll reads a
   * socket whose end host's FIN arrived (EPOLLRDHUP) at once, up to that FIN, on the loop that holds
   * it then (the old one, when its deregistration waits behind other tasks; the new one, as soon as
   * it is registered). A client that sends its request and FIN at once meets exactly that: whoever
   * needs those bytes must be in the pipeline before the move. And the new registration is wrapped
   * ({@link EpollHalfCloseWorkaround}) within the same task as the registration: once that read
   * clears EPOLLRDHUP, an unwrapped registration drops the descriptor from the epoll set and the
   * next EPOLLIN fails with ENOENT, closing the leg (a clean FIN on nothing; issue 9, fce2ef6).
   */
  public static ChannelFuture moveTo(Channel ch, EventLoop loop) {
    ChannelPromise moved = ch.newPromise();
    ch.deregister().addListener(d -> {
      if (!d.isSuccess()) {
        moved.tryFailure(d.cause());
        return;
      }
      // the listener is in place before the registration can complete, so it runs inside it
      ChannelPromise registered = new DefaultChannelPromise(ch, loop);
      registered.addListener(r -> {
        if (r.isSuccess()) {
          EpollHalfCloseWorkaround.install(ch); // the registration is new: wrap it again
          moved.trySuccess();
        } else {
          moved.tryFailure(r.cause());
        }
      });
      loop.register(registered);
    });
    return moved;
  }

  /** Aborts a leg so that its end host sees a reset (SO_LINGER 0, then close). Any thread; null is fine. */
  public static void reset(Channel leg) {
    if (leg == null || !leg.isOpen()) {
      return;
    }
    try {
      leg.config().setOption(ChannelOption.SO_LINGER, 0);
    } catch (RuntimeException e) {
      // The socket may already be shut down (or not connected yet); closing still ends it.
    }
    leg.close();
  }

  /**
   * Half-closes a leg once everything written so far is out: the end host reads EOF after the
   * last byte (after a TLS close_notify when the leg's pipeline terminates TLS). The returned future succeeds when the output is shut down and fails when a write
   * before it failed, the leg is gone, or the shutdown failed. An epoll leg's output is shut down
   * without Netty's per-call exception ({@link QuietOutputShutdown}).
   */
  public static ChannelFuture shutdownOutputAfterWrites(Channel leg) {
    return finishOutputAfterWrites(leg, false);
  }

  /**
   * As {@link #shutdownOutputAfterWrites}, for a leg whose input already ended (its end host's FIN
   * was read) and that nothing will need to reset any more: the FIN goes out by closing the socket,
   * which sends the same FIN after the same bytes (nothing is left unread to turn it into a reset)
   * and ends the leg in one step. Netty's {@code shutdownOutput} creates an exception with a stack
   * trace on every call (to fail writes still queued, of which there are none here): one less per
   * flow. A leg terminating TLS still says close_notify first.
   */
  public static ChannelFuture closeAfterWrites(Channel leg) {
    return finishOutputAfterWrites(leg, true);
  }

  private static ChannelFuture finishOutputAfterWrites(Channel leg, boolean close) {
    ChannelPromise done = leg.newPromise();
    leg.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(f -> {
      if (!f.isSuccess()) {
        done.tryFailure(f.cause());
        return;
      }
      SslHandler tls = leg.pipeline().get(SslHandler.class);
      if (tls == null) {
        shutdownOutput(leg, done, close);
        return;
      }
      // A TLS leg this node terminates says close_notify after its last record, before its FIN.
      tls.closeOutbound().addListener(c -> {
        if (c.isSuccess()) {
          shutdownOutput(leg, done, close);
        } else {
          done.tryFailure(c.cause());
        }
      });
    });
    return done;
  }

  private static void shutdownOutput(Channel leg, ChannelPromise done, boolean close) {
    if (!leg.isActive()) {
      done.tryFailure(new IllegalStateException("leg closed before its output was shut down"));
      return;
    }
    if (!close) {
      try {
        if (QuietOutputShutdown.shutdown(leg)) {
          done.trySuccess();
          return;
        }
      } catch (IOException | NotYetConnectedException e) {
        // ENOTCONN: the socket was reset (or both FINs crossed) since its last event; unchecked in
        // Netty, so it would escape this listener and leave the future pending for ever
        done.tryFailure(e);
        return;
      }
    }
    (close ? leg.close() : ((DuplexChannel) leg).shutdownOutput()).addListener(s -> {
      if (s.isSuccess()) {
        done.trySuccess();
      } else {
        done.tryFailure(s.cause());
      }
    });
  }

  /**
   * For a leg whose output this node has shut down (its FIN sent): the end host's FIN, when it
   * comes, closes the leg instead of half-closing it. On the leg's event loop, right after its
   * output was shut. There is nothing left to half-close: once both FINs crossed, the kernel has
   * moved the socket to TIME_WAIT and Netty's half-closure ({@code shutdownInput}) fails with
   * ENOTCONN, making a {@code NotYetConnectedException} with a stack trace on every such flow
   * (caught inside Netty). Bytes the end host sent before its FIN are still read and delivered
   * first; a reset still fails the read ({@code exceptionCaught}) before the leg closes. The bridge
   * then takes the leg's going inactive as its end host's FIN.
   *
   * <p>Legs that terminate TLS keep the half-closure (their close_notify comes before the FIN and
   * goes through the {@link SslHandler}).
   *
   * @return true when the leg now closes at its end host's FIN; false when it still half-closes
   */
  public static boolean closeAtEndHostsFin(Channel leg) {
    if (!leg.isActive() || leg.pipeline().get(SslHandler.class) != null) {
      return false;
    }
    return leg.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, false);
  }

  /** Why a connect failed, as a reset cause: a timeout, or a refusal (any other failure). */
  public static ResetCause connectFailure(Throwable cause) {
    return cause instanceof ConnectTimeoutException ? ResetCause.CONNECT_TIMEOUT : ResetCause.CONNECT_REFUSED;
  }
}
