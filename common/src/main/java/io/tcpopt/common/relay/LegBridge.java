package io.tcpopt.common.relay;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.tcpopt.common.transport.Legs;
import io.tcpopt.common.transport.ResetCause;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Joins one TCP leg (an accepted client, or a server this node connects) to one {@link Upstream}.
 * The one relay of the data path: optimized flows at both nodes, pass-through flows and the
 * controller's handoff all run through it.
 *
 * <p>It owns the flow's life: FIN both ways (the leg's FIN becomes {@link Upstream#end()}, the
 * upstream's end becomes the leg's FIN once everything before it is written), RST both ways (a
 * reset, failure or early close on either side resets the other; a failed write to the leg resets
 * the flow, never a clean FIN on short data), the leg's idle timeout, early bytes (read from the
 * leg while the upstream is not ready; delivered by the upstream while the leg is still
 * connecting) and backpressure: the leg is read only while nothing waits for upstream credit, and
 * bytes written to the leg are acknowledged to the upstream ({@link Upstream#consumed}) only once
 * the leg's socket took them. So the bridge holds at most the upstream's receive window plus one
 * read per flow, and nothing at all when the flow is idle: no buffer, one {@link IdleTimer} task
 * (not a handler in the leg's pipeline), a handful of small objects.
 *
 * <p>Threading: all state is confined to the upstream's event loop. An accepted leg with nothing in
 * its pipeline moves to that loop before the bridge asks it for bytes ({@link Legs#moveTo}: the WAN
 * connection carrying a stream need not be on the client's loop); the bridge's handler is in its
 * pipeline during the move, for what the transport reads meanwhile. When the leg stays on another
 * loop (TLS terminated on it) its events hop over with {@code execute}; a leg joined to a direct
 * socket shares its loop and nothing hops.
 *
 * <p>Handlers the caller put in the leg's pipeline before {@link #start} (TLS, say) stay between
 * the socket and the bridge, which appends {@code "bridge"} when the leg is connected.
 */
public final class LegBridge implements UpstreamListener {
  private static final Logger log = LoggerFactory.getLogger(LegBridge.class);

  private final Channel leg;
  private final Upstream upstream;
  private final EventLoop loop;
  private final FlowRecorder flow;
  private final String legName;
  private final Duration idleTimeout;

  /** Read from the leg, waiting for upstream credit (created on first need). */
  private ArrayDeque<ByteBuf> toUpstream;
  private long toUpstreamBytes;
  /** From the upstream while the leg is still connecting (created on first need). */
  private ArrayDeque<ByteBuf> toLeg;
  private long toLegQueued;
  /** Written to the leg, not yet taken by its socket. */
  private long toLegInFlight;
  private boolean legJoined;
  private boolean opened;
  private boolean legInputEnded;
  private boolean endSent;
  private boolean upstreamOutputEnded;
  private boolean upstreamEnded;
  private boolean legOutputShut;
  /** The leg is being closed for its FIN ({@link #endLeg}): its going inactive is that, not a failure. */
  private boolean legClosingForFin;
  /**
   * The leg's output is shut and its end host's FIN will close it rather than half-close it
   * ({@link Legs#closeAtEndHostsFin}): its going inactive without an error is that FIN.
   */
  private boolean closesAtFin;
  private boolean finished;
  /** A flush of the leg is queued on the loop ({@link #onDataComplete}). */
  private boolean legFlushScheduled;
  private final Runnable flushLeg = this::flushLeg;
  /** Null when the flow never times out, and until the leg is joined. */
  private IdleTimer idle;

  private LegBridge(Channel leg, Upstream upstream, FlowRecorder flow, String legName, Duration idleTimeout) {
    this.leg = leg;
    this.upstream = upstream;
    this.loop = upstream.eventLoop();
    this.flow = flow;
    this.legName = legName;
    this.idleTimeout = idleTimeout;
  }

  /**
   * Starts a bridge. Any thread.
   *
   * @param leg the leg: an accepted channel ({@code channel.newSucceededFuture()}) or a connect in
   *     progress (made with {@link Legs#connect}); it must not be reading yet. A failed connect
   *     resets the upstream with {@link Legs#connectFailure}.
   * @param upstream the far end, not started yet; the bridge starts it
   * @param flow where bytes, state and the close reason go
   * @param legName what the leg is, for close reasons ("client leg", "server leg")
   * @param idleTimeout the flow is reset after no bytes on the leg for this long; zero for never
   */
  public static void start(ChannelFuture leg, Upstream upstream, FlowRecorder flow, String legName, Duration idleTimeout) {
    LegBridge b = new LegBridge(leg.channel(), upstream, flow, legName, idleTimeout);
    b.run(() -> upstream.start(b));
    if (Legs.canMove(leg, b.loop)) {
      // The bridge's handler goes in first: the leg may be read while it moves (Legs.moveTo: a
      // request and FIN sent at once are read on EPOLLRDHUP, asked for or not), and what it reads
      // must reach the bridge, which takes early bytes and an early FIN before the leg is joined.
      leg.channel().pipeline().addLast("bridge", b.new LegHandler());
      Legs.moveTo(leg.channel(), b.loop).addListener(b::legMoved);
    } else {
      leg.addListener(b::legSettled);
    }
  }

  /** The leg is on the bridge's loop now, in the task that registered it there (or it could not move). */
  private void legMoved(Future<? super Void> f) {
    run(() -> {
      if (!f.isSuccess()) {
        abort(ResetCause.CONNECTION_RESET, legName + " could not move to its upstream's loop: " + f.cause());
      } else if (!leg.isActive()) {
        abort(ResetCause.CONNECTION_RESET, legName + " closed before the flow completed");
      } else {
        legJoined();
      }
    });
  }

  /** The leg's connect finished (or it was accepted): on the leg's own loop, so no event is missed. */
  private void legSettled(Future<? super Void> f) {
    if (!f.isSuccess()) {
      run(() -> abort(Legs.connectFailure(f.cause()), legName + " connect failed: " + f.cause().getMessage()));
      return;
    }
    if (!leg.isActive()) {
      run(() -> abort(ResetCause.CONNECTION_RESET, legName + " closed before the flow completed"));
      return;
    }
    leg.pipeline().addLast("bridge", new LegHandler());
    run(this::legJoined);
  }

  private void legJoined() {
    if (finished) {
      Legs.reset(leg);
      return;
    }
    legJoined = true;
    idle = IdleTimer.start(loop, idleTimeout, () -> abort(ResetCause.IDLE_TIMEOUT, "idle timeout: no bytes on the " + legName + " for " + idleTimeout));
    if (toLeg != null) {
      ByteBuf b;
      while ((b = toLeg.poll()) != null) {
        toLegQueued -= b.readableBytes();
        writeToLeg(b);
      }
      leg.flush();
    }
    if (upstreamEnded) {
      endLeg();
    }
    drainToUpstream();
  }

  private void run(Runnable r) {
    if (loop.inEventLoop()) {
      r.run();
      return;
    }
    try {
      loop.execute(r);
    } catch (RejectedExecutionException e) {
      Legs.reset(leg);
    }
  }

  private void noteBuffered() {
    if (!finished) {
      flow.buffered(toUpstreamBytes + toLegQueued + toLegInFlight);
    }
  }

  // ---- leg → upstream ------------------------------------------------------------------------

  private void fromLeg(ByteBuf buf) {
    if (finished) {
      buf.release();
      return;
    }
    int n = buf.readableBytes();
    flow.fromLeg(n);
    touch();
    if ((toUpstream == null || toUpstream.isEmpty()) && upstream.credit() >= n) {
      upstream.write(buf); // the common case: nothing waits, no queue
    } else {
      if (toUpstream == null) {
        toUpstream = new ArrayDeque<>(4);
      }
      toUpstream.add(buf);
      toUpstreamBytes += n;
    }
    drainToUpstream();
  }

  /** Sends what waits within the upstream's credit, then the end once the leg's FIN was read. */
  private void drainToUpstream() {
    if (finished) {
      return;
    }
    boolean drained = false;
    while (toUpstream != null && !toUpstream.isEmpty()) {
      long credit = upstream.credit();
      if (credit <= 0) {
        break;
      }
      ByteBuf head = toUpstream.peek();
      ByteBuf out = head.readableBytes() <= credit ? toUpstream.poll() : head.readRetainedSlice((int) credit);
      toUpstreamBytes -= out.readableBytes();
      upstream.write(out);
      drained = true;
      if (finished) {
        return;
      }
    }
    if (drained) {
      // Queued bytes leave now: no leg read may follow to flush them (the leg stops reading while
      // bytes wait, and after its FIN nothing is read at all), and unflushed bytes would keep the
      // upstream's credit at 0 for ever.
      upstream.flush();
      if (finished) {
        return;
      }
    }
    if (legInputEnded && !endSent && (toUpstream == null || toUpstream.isEmpty())) {
      endSent = true;
      upstream.end().addListener(this::upstreamOutputEnded);
      if (finished) {
        return;
      }
    }
    noteOpen();
    noteBuffered();
    updateLegReading();
  }

  private void upstreamOutputEnded(Future<? super Void> f) {
    run(() -> {
      if (f.isSuccess()) {
        upstreamOutputEnded = true;
        maybeFinish();
      } else {
        abort(ResetCause.CONNECTION_RESET, "upstream lost bytes before its end: " + f.cause().getMessage());
      }
    });
  }

  private void noteOpen() {
    if (!opened && legJoined && upstream.credit() > 0) {
      opened = true;
      flow.open();
    }
  }

  /** Reads the leg only while nothing waits and the upstream can take more. */
  private void updateLegReading() {
    if (!legJoined || finished) {
      return;
    }
    boolean want = !legInputEnded && (toUpstream == null || toUpstream.isEmpty()) && upstream.credit() > 0;
    if (leg.config().isAutoRead() != want) {
      leg.config().setAutoRead(want);
    }
  }

  private void legInputShutdown() {
    if (finished || legInputEnded) {
      return;
    }
    legInputEnded = true;
    drainToUpstream();
  }

  // ---- upstream → leg ------------------------------------------------------------------------

  @Override
  public void onData(ByteBuf data) {
    if (finished || !data.isReadable()) {
      data.release();
      return;
    }
    if (!legJoined) {
      if (toLeg == null) {
        toLeg = new ArrayDeque<>(4);
      }
      toLeg.add(data);
      toLegQueued += data.readableBytes();
      noteBuffered();
      return;
    }
    writeToLeg(data);
  }

  /**
   * The upstream delivered what it had for now (a WAN stream: after each DATA frame). The leg is
   * flushed once per turn of the event loop, after the whole read burst, not once per frame: one
   * system call for every frame that one WAN read brought, instead of one each.
   */
  @Override
  public void onDataComplete() {
    if (legJoined && !finished && leg.eventLoop() == loop && !legFlushScheduled) {
      legFlushScheduled = true;
      loop.execute(flushLeg);
    }
  }

  private void flushLeg() {
    legFlushScheduled = false;
    if (!finished) {
      leg.flush();
    }
  }

  /**
   * Writes to the leg; flushed at {@link #onDataComplete} when the leg shares the bridge's loop,
   * at once when it does not (one task per write to the other loop, not two).
   */
  private void writeToLeg(ByteBuf data) {
    int n = data.readableBytes();
    flow.toLeg(n);
    toLegInFlight += n;
    noteBuffered();
    ChannelFuture written = leg.eventLoop() == loop ? leg.write(data) : leg.writeAndFlush(data);
    written.addListener(f -> run(() -> {
      toLegInFlight -= n;
      noteBuffered();
      if (finished) {
        return;
      }
      if (f.isSuccess()) {
        touch();
        upstream.consumed(n);
      } else {
        // Bytes the end host will never get: it must see a reset, never a clean end of stream.
        abort(ResetCause.CONNECTION_RESET, legName + " write failed: " + f.cause());
      }
    }));
  }

  @Override
  public void onEnd() {
    if (finished || upstreamEnded) {
      return;
    }
    upstreamEnded = true;
    if (legJoined) {
      endLeg();
    }
  }

  /**
   * The leg's FIN, after everything written to it: by closing the leg when its input already ended
   * and this side's end was delivered (nothing left to read, nothing that could still need a reset
   * of this leg), else by shutting its output.
   */
  private void endLeg() {
    boolean last = legInputEnded && upstreamOutputEnded;
    legClosingForFin = last;
    (last ? Legs.closeAfterWrites(leg) : Legs.shutdownOutputAfterWrites(leg)).addListener(f -> {
      // on the leg's loop, before any later event of the leg
      boolean closesAtItsFin = f.isSuccess() && !last && Legs.closeAtEndHostsFin(leg);
      run(() -> {
        if (f.isSuccess()) {
          legOutputShut = true;
          closesAtFin = closesAtItsFin;
          maybeFinish();
        } else {
          abort(ResetCause.CONNECTION_RESET, legName + " write failed before its FIN: " + f.cause().getMessage());
        }
      });
    });
  }

  @Override
  public void onCredit() {
    drainToUpstream();
  }

  @Override
  public void onReset(ResetCause cause, String reason) {
    abort(cause, reason);
  }

  private void touch() {
    if (idle != null) {
      idle.touch();
    }
  }

  // ---- endings -------------------------------------------------------------------------------

  private void maybeFinish() {
    if (!finished && legInputEnded && upstreamOutputEnded && upstreamEnded && legOutputShut) {
      finished = true;
      stopIdle();
      leg.close();
      flow.closed("completed");
    }
  }

  /** Ends the flow abnormally: resets the upstream (a no-op when it is the one that failed) and the leg. */
  private void abort(ResetCause cause, String reason) {
    if (finished) {
      return;
    }
    finished = true;
    stopIdle();
    releaseAll(toUpstream);
    releaseAll(toLeg);
    toUpstreamBytes = 0;
    toLegQueued = 0;
    upstream.reset(cause, reason);
    Legs.reset(leg);
    flow.closed(reason);
    log.debug("flow reset ({}): {}", cause, reason);
  }

  private void stopIdle() {
    if (idle != null) {
      idle.stop();
      idle = null;
    }
  }

  private static void releaseAll(ArrayDeque<ByteBuf> q) {
    if (q == null) {
      return;
    }
    ByteBuf b;
    while ((b = q.poll()) != null) {
      b.release();
    }
  }

  /** The leg's end of the bridge: forwards its events to the bridge's loop. */
  private final class LegHandler extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (!(msg instanceof ByteBuf)) {
        ReferenceCountUtil.release(msg);
        return;
      }
      ByteBuf buf = (ByteBuf) msg;
      if (loop.inEventLoop()) {
        fromLeg(buf);
        return;
      }
      try {
        loop.execute(() -> fromLeg(buf));
      } catch (RejectedExecutionException e) {
        buf.release();
        Legs.reset(ctx.channel());
      }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
      run(() -> {
        if (!finished) {
          upstream.flush();
        }
      });
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
      if (evt instanceof ChannelInputShutdownEvent) {
        run(LegBridge.this::legInputShutdown);
      }
      ReferenceCountUtil.release(evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      run(() -> abort(ResetCause.CONNECTION_RESET, legName + " failed: " + cause.getMessage()));
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      run(() -> {
        if (legInputEnded && (legOutputShut || legClosingForFin)) {
          // both directions finished at the socket (what was read still drains to the upstream), or
          // this is the close that sends the leg's FIN: its future says whether it went out
          return;
        }
        if (legOutputShut && !finished && closesAtFin) {
          // the end host's FIN after the leg's own (Legs.closeAtEndHostsFin): the transport read up
          // to it and closed the leg; a reset would have failed the read first (exceptionCaught)
          legInputShutdown();
          return;
        }
        abort(ResetCause.CONNECTION_RESET, legName + " closed before the flow completed");
      });
    }
  }
}
