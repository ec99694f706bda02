package io.tcpopt.common.relay;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.tcpopt.common.transport.Legs;
import io.tcpopt.common.transport.ResetCause;

/**
 * An {@link Upstream} over a plain TCP socket this node connects (HAProxy's pass-through mux: a
 * socket is a mux with one stream). Credit is the socket's writability: unlimited while it is
 * writable, 0 while it is connecting or past its high watermark. Its receive window is the leg's
 * write watermarks: it stops reading once {@code window.high()} delivered bytes wait to be {@link
 * #consumed}, and reads again at {@code window.low()}.
 *
 * <p>Connect it with {@link Legs#connect} on the leg's event loop, so that leg and socket share one
 * loop. An optional preface (the PROXY v2 header of a handoff) is written first, before any byte
 * of the leg. The socket closes itself once both directions ended.
 */
public final class DirectUpstream extends ChannelInboundHandlerAdapter implements Upstream {
  private final ChannelFuture connect;
  private final Channel ch;
  private final EventLoop loop;
  private final String name;
  private final WriteBufferWaterMark window;
  private final ChannelFutureListener writeFailed = f -> {
    if (!f.isSuccess()) {
      fail(ResetCause.CONNECTION_RESET, name() + " write failed: " + f.cause());
    }
  };
  private ByteBuf preface;
  private UpstreamListener listener;
  /** An {@link #end()} asked for before the socket connected. */
  private ChannelPromise pendingEnd;
  private int unconsumed;
  private boolean connected;
  private boolean inputEnded;
  private boolean outputEnded;
  /** The far end's FIN closes the socket: its output is shut ({@link Legs#closeAtEndHostsFin}). */
  private boolean closesAtFin;
  private boolean gone;

  private DirectUpstream(EventLoop loop, ChannelFuture connect, String name, WriteBufferWaterMark window, ByteBuf preface) {
    this.loop = loop;
    this.connect = connect;
    this.ch = connect.channel();
    this.name = name;
    this.window = window;
    this.preface = preface;
  }

  /**
   * An upstream over {@code connect}, a connect in progress (or done) on {@code loop}.
   *
   * @param name what the socket is, for reasons ("server leg", "handoff connection to sn-1")
   * @param window the leg's write watermarks: how far delivery may run ahead of the leg
   * @param preface bytes to send before anything else (owned from here), or null
   */
  public static DirectUpstream over(EventLoop loop, ChannelFuture connect, String name, WriteBufferWaterMark window, ByteBuf preface) {
    return new DirectUpstream(loop, connect, name, window, preface);
  }

  private String name() {
    return name;
  }

  @Override
  public EventLoop eventLoop() {
    return loop;
  }

  @Override
  public void start(UpstreamListener listener) {
    this.listener = listener;
    connect.addListener(f -> connected(f.isSuccess() ? null : f.cause()));
  }

  private void connected(Throwable failure) {
    if (gone) {
      Legs.reset(ch);
      return;
    }
    if (failure != null) {
      fail(Legs.connectFailure(failure), name + " connect failed: " + failure.getMessage());
      return;
    }
    if (!ch.isActive()) {
      fail(ResetCause.CONNECTION_RESET, name + " closed before the flow completed");
      return;
    }
    ch.pipeline().addLast("upstream", this);
    connected = true;
    if (preface != null) {
      ByteBuf b = preface;
      preface = null;
      ch.writeAndFlush(b).addListener(writeFailed);
    }
    if (pendingEnd != null) {
      ChannelPromise p = pendingEnd;
      pendingEnd = null;
      shutdownOutput(p);
    }
    ch.config().setAutoRead(true);
    listener.onCredit();
  }

  @Override
  public long credit() {
    return connected && !gone && !outputEnded && ch.isWritable() ? Long.MAX_VALUE : 0;
  }

  @Override
  public void write(ByteBuf data) {
    if (gone || !connected) {
      data.release();
      return;
    }
    ch.write(data).addListener(writeFailed);
  }

  @Override
  public void flush() {
    if (connected && !gone) {
      ch.flush();
    }
  }

  @Override
  public Future<Void> end() {
    ChannelPromise done = ch.newPromise();
    if (gone) {
      done.setFailure(new IllegalStateException(name + " already reset"));
    } else if (!connected) {
      pendingEnd = done;
    } else {
      shutdownOutput(done);
    }
    return done;
  }

  private void shutdownOutput(ChannelPromise done) {
    Legs.shutdownOutputAfterWrites(ch).addListener(f -> {
      if (f.isSuccess()) {
        outputEnded = true;
        closesAtFin = !inputEnded && Legs.closeAtEndHostsFin(ch);
        done.trySuccess();
        closeIfDone();
      } else {
        done.tryFailure(f.cause());
      }
    });
  }

  @Override
  public void consumed(int bytes) {
    unconsumed -= bytes;
    if (unconsumed <= window.low() && connected && !gone && !inputEnded && !ch.config().isAutoRead()) {
      ch.config().setAutoRead(true);
    }
  }

  @Override
  public void reset(ResetCause cause, String reason) {
    if (gone) {
      return;
    }
    gone = true;
    releasePreface();
    Legs.reset(ch);
  }

  private void fail(ResetCause cause, String reason) {
    if (gone) {
      return;
    }
    gone = true;
    releasePreface();
    Legs.reset(ch);
    if (pendingEnd != null) {
      pendingEnd.tryFailure(new IllegalStateException(reason));
    }
    listener.onReset(cause, reason);
  }

  private void releasePreface() {
    if (preface != null) {
      preface.release();
      preface = null;
    }
  }

  private void closeIfDone() {
    if (inputEnded && outputEnded && !gone) {
      gone = true;
      ch.close();
    }
  }

  // ---- the socket's events (its pipeline, this loop) ------------------------------------------

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (gone || !(msg instanceof ByteBuf)) {
      ReferenceCountUtil.release(msg);
      return;
    }
    ByteBuf buf = (ByteBuf) msg;
    unconsumed += buf.readableBytes();
    if (unconsumed >= window.high()) {
      ch.config().setAutoRead(false);
    }
    listener.onData(buf);
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    if (!gone) {
      listener.onDataComplete();
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (!gone && ch.isWritable()) {
      listener.onCredit();
    }
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof ChannelInputShutdownEvent && !gone && !inputEnded) {
      inputEnded = true;
      listener.onEnd();
      closeIfDone();
    }
    ReferenceCountUtil.release(evt);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    fail(ResetCause.CONNECTION_RESET, name + " failed: " + cause.getMessage());
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (closesAtFin && outputEnded && !inputEnded && !gone) {
      // the far end's FIN after ours (Legs.closeAtEndHostsFin): read up to it, then closed; a
      // reset would have failed the read first (exceptionCaught)
      inputEnded = true;
      listener.onEnd();
      closeIfDone();
      return;
    }
    if (!(inputEnded && outputEnded)) {
      fail(ResetCause.CONNECTION_RESET, name + " closed before the flow completed");
    }
  }
}
