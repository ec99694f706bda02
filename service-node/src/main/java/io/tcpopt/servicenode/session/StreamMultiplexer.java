package io.tcpopt.servicenode.session;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.concurrent.ScheduledFuture;
import io.tcpopt.common.tls.HandshakeFailure;
import io.tcpopt.common.tls.TlsContexts;
import io.tcpopt.servicenode.trust.HelloAdmission;
import io.tcpopt.servicenode.trust.PeerAdmission;
import io.tcpopt.servicenode.wire.DataFrame;
import io.tcpopt.servicenode.wire.Frame;
import io.tcpopt.servicenode.wire.GoAwayFrame;
import io.tcpopt.servicenode.wire.HelloFrame;
import io.tcpopt.servicenode.wire.OpenFrame;
import io.tcpopt.servicenode.wire.ServerReuse;
import io.tcpopt.servicenode.wire.PingFrame;
import io.tcpopt.servicenode.wire.ReductionFrame;
import io.tcpopt.servicenode.wire.RstStreamFrame;
import io.tcpopt.servicenode.wire.WindowUpdateFrame;
import io.tcpopt.servicenode.wire.WireCodes;
import io.tcpopt.servicenode.wire.WireProtocolException;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last handler of a WAN connection's pipeline ({@code [SslHandler] → FrameCodec → this}): runs
 * the HELLO exchange (the peer admitted by a {@link HelloAdmission} before anything else of it is
 * acted upon), keepalive PINGs (RTT, dead-peer detection after 3 unanswered), and
 * multiplexes streams. The dialler opens odd stream ids, the acceptor even ones, each increasing.
 * Connection errors answer with GOAWAY and close; stream errors with RST_STREAM. It never stops
 * reading the connection, so one stalled stream cannot block the others (credit bounds each one).
 * Its streams' DATA go on whichever connection of its {@link ConnectionGroup} (the connections of
 * one dialler's pool) can send soonest, and DATA of the group's other streams that arrive here are
 * handed to their own connection (wire format 2).
 * Confined to the channel's event loop except for the volatile status fields read by the registry.
 */
public final class StreamMultiplexer extends ChannelDuplexHandler {
  private static final Logger log = LoggerFactory.getLogger(StreamMultiplexer.class);
  private static final int MAX_UNANSWERED_PINGS = 3;
  /** Where a node's trusted CAs are configured, for a handshake failure's log line. */
  private static final String TRUSTED_SETTING = "service-node.wan.tls.trusted";
  /** A peer that keeps sending but has not answered this many PINGs is not reading: dead too. */
  private static final int MAX_UNANSWERED_PINGS_BUSY = 12;
  /**
   * Bytes this connection may hold unsent (control frames go out whatever the writability, and
   * a peer that never reads while sending PINGs and OPENs makes them pile up): beyond, the peer is
   * not reading and the connection is closed.
   */
  static final long MAX_UNSENT_BYTES = 4L << 20;
  /**
   * How long a retiring connection keeps opening streams for flows that picked it before it
   * stopped taking new ones (they open after the open-coalescing delay, at most 100 ms), before
   * its GOAWAY tells the peer it opens no more.
   */
  static final long RETIRE_GRACE_MILLIS = 1_000;
  /** How long a connection closing with GOAWAY waits for the GOAWAY to leave before it closes regardless. */
  static final long GOAWAY_CLOSE_GRACE_MILLIS = 1_000;

  private final SessionSettings local;
  private final boolean dialler;
  private final StreamAcceptor acceptor;
  private final SessionListener listener;
  private final HelloAdmission admission;
  private final IntObjectHashMap<MuxStream> streams = new IntObjectHashMap<>();
  /** Which connection of which dialler's pool this is, for its HELLO (null on the accepting side: its HELLO says none). */
  private PooledConnection pooledAs;
  /**
   * The connections to the same pool of the peer, this one included, once the peer's HELLO was
   * admitted: this connection's streams may send DATA on any of them. Null before.
   */
  private volatile ConnectionGroup group;
  /** This connection's number in {@link #group} (the dialler's). */
  private int number;

  private ChannelHandlerContext ctx;
  private volatile HelloFrame peer;
  private volatile String peerSite;
  private volatile boolean up;
  private volatile boolean closing;
  private volatile int activeStreams;
  /**
   * Flows that picked this connection and will open a stream on it (lazily, with their first bytes
   * or after the coalescing delay): counted against the peer's max-streams with the open ones, so
   * that a burst of new flows cannot pick a connection beyond it and then fail to open.
   */
  private final AtomicInteger pendingOpens = new AtomicInteger();
  /** Took no new flows since it opened its {@code streamsPerConnection} streams; its GOAWAY follows. */
  private volatile boolean retiring;
  private boolean retiredGoAwaySent;
  private int localOpenedTotal;
  private volatile long rttNanos = -1;
  private boolean helloSent;
  /**
   * This side closed the connection after flushing everything written to it (the last stream of a
   * connection gone away finished, or the node stops): other connections' DATA written here before
   * it reach the peer, so their streams are not reset (a frame handed to it after it closed goes on
   * its stream's own connection).
   */
  private boolean closedGracefully;
  private boolean goingAway;
  private int nextLocalId;
  private int lastPeerId;
  private int localOpened;
  private int peerOpened;
  /** Opaque values of the PINGs sent and not answered yet, oldest first: an ACK must echo one. */
  private final ArrayDeque<Long> outstandingPings = new ArrayDeque<>();
  /** When the last bytes arrived, on the loop's clock. */
  private long lastReadNanos;
  /**
   * Nothing arrived for a keepalive interval while a PING was unanswered: the peer or the path is
   * gone and the keepalive will say so within two more intervals, so no new stream opens here
   * meanwhile ({@link #canOpen}; its flow passes through instead of waiting for the reset). In a WAN
   * blackhole the connections of a pool find their peer dead each at its own keepalive phase, up to
   * an interval apart: a flow that came after the first had reset its streams was picked onto one
   * not yet declared dead and reset with 0 bytes 1.8 s later (bench WanBlackholeChaosTest, fresh-clone
   * CI 2026-12-03 14:29 UTC; the node logs were not kept, the sibling is inferred). Written on the
   * loop, read by any thread.
   */
  private volatile boolean unresponsive;
  private final StreamScheduler scheduler = new StreamScheduler();
  private boolean pumping;
  private boolean pumpAgain;
  /**
   * Frames of this connection's streams wait because no member of the group could take them: the
   * first member that becomes writable wakes this one ({@link ConnectionGroup#writable}). Set and
   * cleared on this loop, read by the others.
   */
  private volatile boolean awaitingRoom;
  /** A {@link #flush} is queued for the end of this turn of the event loop. */
  private boolean flushQueued;
  private final Runnable queuedFlush = this::flushNow;
  private ScheduledFuture<?> handshakeTimer;
  private ScheduledFuture<?> keepaliveTimer;
  private ScheduledFuture<?> unsentLimit;

  /** {@code admission}: decides whether the peer of this connection may hold a session and at which site. */
  public StreamMultiplexer(SessionSettings local, boolean dialler, StreamAcceptor acceptor, SessionListener listener, HelloAdmission admission) {
    this.local = local;
    this.admission = admission;
    this.dialler = dialler;
    this.acceptor = acceptor;
    this.listener = listener;
    this.nextLocalId = dialler ? 1 : 2;
    this.pooledAs = dialler ? PooledConnection.alone() : null;
  }

  /** The dialler's pool names this connection {@code pooledAs} in its HELLO; before the channel is active. */
  StreamMultiplexer pooledAs(PooledConnection pooledAs) {
    this.pooledAs = pooledAs;
    return this;
  }

  // ---- status, readable from any thread ------------------------------------------------------

  public Channel channel() {
    return ctx.channel();
  }

  public boolean isUp() {
    return up && !closing;
  }

  /** True when a new stream may be opened here (approximate off the event loop). */
  public boolean canOpen() {
    HelloFrame p = peer;
    return up && !closing && !goingAway && !retiring && !unresponsive && p != null && activeStreams + pendingOpens.get() < p.maxStreams() && nextLocalId > 0;
  }

  /**
   * Reserves one of the peer's max-streams for a flow that will open its stream here: false when
   * the open streams and the reservations already reach it (the flow goes elsewhere, or passes
   * through). Any thread; given back by {@link WanStreamUpstream} when its OPEN is out or it ends
   * before, or with {@link #releaseOpen}.
   */
  public boolean reserveOpen() {
    HelloFrame p = peer;
    if (p == null) {
      return false;
    }
    for (;;) {
      int n = pendingOpens.get();
      if (activeStreams + n >= p.maxStreams()) {
        return false;
      }
      if (pendingOpens.compareAndSet(n, n + 1)) {
        return true;
      }
    }
  }

  /** Gives back a reservation of {@link #reserveOpen}. Any thread. */
  public void releaseOpen() {
    pendingOpens.decrementAndGet();
  }

  public int activeStreams() {
    return activeStreams;
  }

  /** The peer's HELLO, or null before the handshake completed. */
  public HelloFrame peerHello() {
    return peer;
  }

  /** The peer's site as this node's configuration or registry has it (never the HELLO's claim); null before admission. */
  public String peerSite() {
    return peerSite;
  }

  public String peerName() {
    HelloFrame p = peer;
    return p == null ? String.valueOf(ctx == null ? "?" : ctx.channel().remoteAddress()) : p.name();
  }

  public boolean isDialler() {
    return dialler;
  }

  /** The last PING round trip in nanoseconds, or -1 before the first answer. */
  public long rttNanos() {
    return rttNanos;
  }

  /** Sends a data-reduction control message (at most the peer's frame size). Any thread. */
  public void sendReductionControl(byte[] message) {
    ctx.writeAndFlush(new ReductionFrame(message), ctx.voidPromise());
  }

  /** The node's data reduction. */
  ReductionLink reduction() {
    return local.reduction();
  }

  // ---- used by streams -----------------------------------------------------------------------

  int peerMaxFrameSize() {
    return peer.maxFrameSize();
  }

  int localWindow() {
    return local.initialStreamWindow();
  }

  /** What a stream's receive window may grow to. */
  int maxLocalWindow() {
    return local.maxStreamWindow();
  }

  /**
   * What a new stream on this connection may make this node hold at its start, before its windows
   * grow: its receive window and its send queue's bound (the peer's initial window, at most
   * {@link MuxStream#SEND_QUEUE_LIMIT}). 0 before the HELLO.
   */
  public long streamStartBytes() {
    HelloFrame p = peer;
    return p == null ? 0 : (long) local.initialStreamWindow() + MuxStream.sendQueueBound(p.initialStreamWindow());
  }

  /** The send window of a stream this side opens, before the OPEN; 0 before the HELLO. */
  int peerInitialWindow() {
    HelloFrame p = peer;
    return p == null ? 0 : p.initialStreamWindow();
  }

  /** Largest first-bytes payload an OPEN may carry. */
  int maxOpenPayload() {
    HelloFrame p = peer;
    return p == null ? 0 : Math.min(p.maxFrameSize() - OpenFrame.fixedLength(16) - ServerReuse.ENCODED_LENGTH, p.initialStreamWindow());
  }

  /**
   * Writes a control frame: it goes ahead of every stream's queued bytes. A peer that lets more
   * than {@link #MAX_UNSENT_BYTES} pile up is not reading: the connection is closed.
   */
  void write(Frame frame) {
    ctx.write(frame, ctx.voidPromise());
    checkUnsent();
  }

  private void checkUnsent() {
    ChannelOutboundBuffer out = ctx.channel().unsafe().outboundBuffer();
    if (out != null && out.totalPendingWriteBytes() > MAX_UNSENT_BYTES && !closing) {
      closing = true;
      log.warn("closing WAN connection {} (peer {}): peer not reading, {} bytes unsent", ctx.channel().remoteAddress(), peerName(),
          out.totalPendingWriteBytes());
      ctx.close();
    }
  }

  /** For tests: the scheduler of this connection's streams. */
  StreamScheduler scheduler() {
    return scheduler;
  }

  /** {@code stream} has bytes or its end queued: the scheduler sends them at the next {@link #flush}. */
  void schedule(MuxStream stream) {
    scheduler.add(stream);
  }

  /**
   * Hands the connection what the scheduler allows and flushes it, once per turn of the event loop:
   * the first call of a turn queues the flush behind the turn's I/O, so every frame that turn's
   * reads made (OPENs with their first bytes, DATA and ENDs of many legs, WINDOW_UPDATEs) leaves in
   * one write and, with TLS, in as few records as fit, instead of one record and one system call
   * per frame. The frames go out in the same turn, so nothing waits for a later event.
   */
  void flush() {
    if (!flushQueued) {
      flushQueued = true;
      ctx.executor().execute(queuedFlush);
    }
  }

  private void flushNow() {
    flushQueued = false;
    pump();
    ctx.flush();
  }

  /** For tests: whether a flush is queued for the end of this turn. */
  boolean flushQueued() {
    return flushQueued;
  }

  /**
   * Moves frames from the streams' queues into the connection while it is writable (its write
   * watermarks and the socket's TCP_NOTSENT_LOWAT, sized by {@link UnsentLimit}, keep that queue shallow), then tells streams
   * whose full queues drained that they may take more. Re-entry from those streams only asks for
   * another round.
   */
  private void pump() {
    if (pumping) {
      pumpAgain = true;
      return;
    }
    pumping = true;
    try {
      do {
        pumpAgain = false;
        sendWhereThereIsRoom();
        MuxStream s;
        while ((s = scheduler.pollRoomAgain()) != null) {
          s.onSendRoom();
        }
      } while (pumpAgain && soonest() != null);
    } finally {
      pumping = false;
    }
    closeIfGoneAway();
  }

  /**
   * Hands the scheduler's frames, in its order, each to the connection of the group that can send
   * soonest ({@link ConnectionGroup#soonest}), while one can. A frame stays on this connection when
   * it carries the END_STREAM, or when the peer may not know its stream yet (opened here and not
   * answered: a DATA elsewhere could arrive before its OPEN); such a frame is written here even
   * when this connection is full, but then ends the round. A frame sent elsewhere is noted by its
   * stream (for the loss of that connection) and names this connection as its home. While the
   * group's express connection can take a frame, interactive streams' frames go there first, ahead
   * of the scheduler's order and whether or not the bulk's connections have room.
   */
  private void sendWhereThereIsRoom() {
    int max = peer == null ? StreamScheduler.QUANTUM : peer.maxFrameSize() - DataFrame.OFFSET_LENGTH - DataFrame.HOME_LENGTH;
    List<StreamMultiplexer> flushElsewhere = null;
    if (awaitingRoom) {
      awaitingRoom = false;
    }
    while (true) {
      ConnectionGroup g = group;
      StreamMultiplexer via = g == null ? null : g.express();
      DataFrame frame = via == null ? null : scheduler.nextInteractive(max, System.nanoTime());
      if (frame == null) {
        via = soonestOrAwaitRoom();
        frame = via == null ? null : scheduler.next(max);
      }
      if (frame == null) {
        break;
      }
      MuxStream stream = via == this ? null : streams.get(frame.streamId());
      if (via == this || stream == null || frame.endStream() || !stream.mayTravelAway()) {
        ctx.write(frame, ctx.voidPromise());
        if (via != this && !ctx.channel().isWritable()) {
          awaitingRoom = !scheduler.isIdle(); // the round ends here: the next member with room goes on with it
          break;
        }
        continue;
      }
      stream.sentOn(via, frame.offset() + frame.creditLength());
      via.writeFromOtherConnection(frame.awayFrom(number), frame.offset(), stream);
      if (flushElsewhere == null) {
        flushElsewhere = new ArrayList<>(4);
      }
      if (!flushElsewhere.contains(via)) {
        flushElsewhere.add(via);
      }
    }
    if (flushElsewhere != null) {
      for (StreamMultiplexer m : flushElsewhere) {
        m.channel().flush();
      }
    }
  }

  /**
   * {@link #soonest}; when there is none while frames wait here, this connection asks to be woken by
   * the first member that becomes writable, then looks once more: a member that became writable
   * meanwhile may have read {@link #awaitingRoom} before it was set, but is then seen writable here.
   */
  private StreamMultiplexer soonestOrAwaitRoom() {
    StreamMultiplexer via = soonest();
    if (via != null || group == null || scheduler.isIdle()) {
      return via;
    }
    awaitingRoom = true;
    via = soonest();
    if (via != null) {
      awaitingRoom = false;
    }
    return via;
  }

  /** Whether frames of this connection's streams wait for a member of the group to become writable. Any thread. */
  boolean awaitingRoom() {
    return awaitingRoom;
  }

  /** The connection of the group that can send soonest (this one alone before the HELLO), or null when none is writable. */
  private StreamMultiplexer soonest() {
    ConnectionGroup g = group;
    if (g == null) {
      return ctx.channel().isWritable() ? this : null;
    }
    return g.soonest(this);
  }

  /**
   * A DATA of {@code stream} (at stream offset {@code offset}), which lives on another connection of
   * the group, to send here. Any thread (Netty queues it to this loop). Its bytes are kept until
   * written: a frame this connection could not write (it closed meanwhile, gracefully or not) never
   * entered its socket, and goes on the stream's own connection instead.
   */
  void writeFromOtherConnection(DataFrame frame, long offset, MuxStream stream) {
    ByteBuf kept = frame.content().retainedDuplicate();
    boolean encoded = frame.encoded();
    int id = frame.streamId();
    ctx.write(frame).addListener(written -> {
      if (written.isSuccess()) {
        kept.release();
      } else {
        stream.connection().resendHere(new DataFrame(id, offset, kept, false, encoded), stream);
      }
    });
  }

  /** A DATA of {@code stream} that another connection of the group could not write: sent here. Any thread. */
  private void resendHere(DataFrame frame, MuxStream stream) {
    try {
      ctx.executor().execute(() -> {
        if (closing || !stream.mayTravelAway()) { // the stream or this connection ended meanwhile
          frame.release();
          return;
        }
        ctx.write(frame, ctx.voidPromise());
        flush();
      });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      frame.release();
    }
  }

  /** Another connection of the group became writable: frames waiting here may go there. Any thread. */
  void wakeFromOtherConnection() {
    if (isUp()) {
      executeOnLoop(this::flush);
    }
  }

  /**
   * Another connection of the group was lost: every stream of this connection that sent bytes on it
   * that the peer has not acknowledged is reset (RST_STREAM here, its leg reset), and only those:
   * those bytes may never arrive, and the peer's leg must never see a FIN after a gap. Any thread.
   */
  void otherConnectionLost(StreamMultiplexer lost) {
    String reason = "bytes unacknowledged on lost " + lost;
    executeOnLoop(() -> {
      List<MuxStream> hit = new ArrayList<>();
      for (MuxStream s : streams.values()) {
        if (s.unacknowledgedOn(lost)) {
          hit.add(s);
        }
      }
      for (MuxStream s : hit) {
        s.lostBytesWith(reason);
      }
    });
  }

  void executeOnLoop(Runnable task) {
    try {
      ctx.executor().execute(task);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // the loop is shutting down: its connections close, and their streams with them
    }
  }

  private void closeIfGoneAway() {
    if (goingAway && streams.isEmpty() && scheduler.isIdle() && !closing) {
      closing = true;
      closedGracefully = true;
      ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
    }
  }

  void remove(MuxStream stream) {
    if (streams.remove(stream.id()) != null) {
      activeStreams = streams.size();
      if (isLocal(stream.id())) {
        localOpened--;
      } else {
        peerOpened--;
      }
      closeIfGoneAway();
    }
  }

  /**
   * Opens a stream carrying {@code firstBytes} in its OPEN, flushed at the end of the turn (with the
   * stream's start credit and whatever else the turn writes). Must run on this connection's event
   * loop. Returns null (and leaves {@code firstBytes} with the caller) when no stream can be opened.
   */
  MuxStream open(long flowId, InetSocketAddress source, InetSocketAddress destination, int openFlags, ServerReuse serverReuse, ByteBuf firstBytes,
      StreamHandler handler) {
    HelloFrame p = peer;
    if (!up || closing || goingAway || retiredGoAwaySent || p == null || localOpened >= p.maxStreams() || nextLocalId <= 0
        || firstBytes.readableBytes() > maxOpenPayload() || !ctx.channel().isActive()) {
      return null;
    }
    int id = nextLocalId;
    nextLocalId += 2;
    MuxStream stream = new MuxStream(this, id, (long) p.initialStreamWindow() - firstBytes.readableBytes(), local.initialStreamWindow(),
        firstBytes.readableBytes(), 0);
    stream.handler(handler);
    streams.put(id, stream);
    activeStreams = streams.size();
    localOpened++;
    ctx.write(new OpenFrame(id, flowId, source, destination, openFlags, serverReuse, firstBytes), ctx.voidPromise());
    flush(); // with the turn's other frames: the rest of the first bytes and the end, when the leg gave them in this turn too
    if (++localOpenedTotal >= local.streamsPerConnection() && !retiring) {
      retire();
    }
    return stream;
  }

  /**
   * Stream-id exhaustion, handled before it happens: the connection takes no new flows, the pool
   * dials its replacement, and after {@link #RETIRE_GRACE_MILLIS} (flows that already picked it
   * open their streams meanwhile) GOAWAY NO_ERROR tells the peer this side opens no more. Streams
   * the peer opens are still accepted until it has read that GOAWAY; the peer closes the connection
   * once every stream has finished.
   */
  private void retire() {
    retiring = true;
    log.info("WAN connection {} (peer {}) opened {} streams: retiring it, a new connection takes its new flows", ctx.channel().remoteAddress(),
        peerName(), localOpenedTotal);
    listener.sessionRetiring(this);
    ctx.executor().schedule(() -> {
      if (!closing && !retiredGoAwaySent) {
        retiredGoAwaySent = true;
        ctx.writeAndFlush(new GoAwayFrame(lastPeerId, WireCodes.GOAWAY_NO_ERROR, "connection retired after " + localOpenedTotal + " streams"),
            ctx.voidPromise());
      }
    }, RETIRE_GRACE_MILLIS, TimeUnit.MILLISECONDS);
  }

  /** True once this connection stopped taking new flows (see {@link SessionListener#sessionRetiring}). */
  public boolean isRetiring() {
    return retiring;
  }

  /** Whether this is its pool's express connection ({@link ConnectionGroup#express}); known once up. */
  public boolean isExpress() {
    return group != null && PooledConnection.isExpress(number);
  }

  /** Sends GOAWAY(code) and closes the connection, logging why. */
  public void connectionError(int code, String reason) {
    if (closing) {
      return;
    }
    closing = true;
    log.warn("closing WAN connection {} (peer {}): {}: {}", ctx.channel().remoteAddress(), peerName(), WireCodes.goAwayName(code), reason);
    ctx.writeAndFlush(new GoAwayFrame(lastPeerId, code, reason)).addListener(sent -> lingerAfterGoAway(sent.isSuccess()));
    // A dead or blackholed peer may never take the GOAWAY (its socket stays full of unacknowledged
    // bytes): close anyway, so the streams' legs are reset now rather than when TCP gives up.
    ctx.executor().schedule(() -> {
      ctx.close();
    }, GOAWAY_CLOSE_GRACE_MILLIS, TimeUnit.MILLISECONDS);
  }

  /**
   * After a connection error's GOAWAY: half-close (close_notify, then FIN) and keep reading, discarding,
   * until the peer closes or the grace timer does. Closing at once would make the kernel answer the
   * peer's bytes still arriving (the rest of an oversized frame) with a reset, and a peer whose own
   * write then fails may close before it reads the GOAWAY that says why.
   */
  private void lingerAfterGoAway(boolean sent) {
    Channel ch = ctx.channel();
    if (!sent || !(ch instanceof DuplexChannel)) {
      ctx.close();
      return;
    }
    DuplexChannel duplex = (DuplexChannel) ch;
    SslHandler tls = ctx.pipeline().get(SslHandler.class);
    if (tls == null) {
      duplex.shutdownOutput();
    } else {
      tls.closeOutbound().addListener(notified -> duplex.shutdownOutput());
    }
  }

  /** Graceful close at node shutdown: GOAWAY(SHUTTING_DOWN), then close. Any thread. */
  public void shutdown() {
    Channel ch = ctx.channel();
    ch.eventLoop().execute(() -> {
      if (!closing) {
        closing = true;
        closedGracefully = true;
        ctx.writeAndFlush(new GoAwayFrame(lastPeerId, WireCodes.GOAWAY_SHUTTING_DOWN, "node shutting down")).addListener(ChannelFutureListener.CLOSE);
      }
    });
  }

  // ---- pipeline events -----------------------------------------------------------------------

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    if (ctx.channel().isActive()) {
      startHandshake();
    }
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    startHandshake();
    super.channelActive(ctx);
  }

  private void startHandshake() {
    if (handshakeTimer == null) {
      handshakeTimer = ctx.executor().schedule(
          () -> connectionError(WireCodes.GOAWAY_HANDSHAKE_TIMEOUT, "no HELLO within " + local.handshakeTimeout().toMillis() + " ms"),
          local.handshakeTimeout().toNanos(), TimeUnit.NANOSECONDS);
    }
    if (ctx.pipeline().get(SslHandler.class) == null) {
      sendHello();
    }
  }

  private void sendHello() {
    if (helloSent) {
      return;
    }
    helloSent = true;
    ctx.writeAndFlush(new HelloFrame(HelloFrame.VERSION, local.maxFrameSize(), local.initialStreamWindow(), local.maxStreams(),
        pooledAs == null ? 0 : pooledAs.session(), pooledAs == null ? 0 : pooledAs.number(), local.name(), local.site(), local.reduction().cacheEpoch(), local.reduction().cacheCapacity()), ctx.voidPromise());
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    if (evt instanceof SslHandshakeCompletionEvent) {
      SslHandshakeCompletionEvent done = (SslHandshakeCompletionEvent) evt;
      if (done.isSuccess()) {
        sendHello();
      } else {
        if (!closing && ctx.channel().isActive()) {
          log.warn("TLS handshake with {} failed: {}", ctx.channel().remoteAddress(), HandshakeFailure.describe(done.cause(), TRUSTED_SETTING));
        }
        closing = true;
        ctx.close();
      }
    }
    super.userEventTriggered(ctx, evt);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    lastReadNanos = ctx.executor().ticker().nanoTime();
    if (unresponsive) {
      unresponsive = false;
      log.info("WAN connection {}: {} answers again; new flows may open streams on it", ctx.channel(), peerName());
    }
    if (!(msg instanceof Frame) || closing) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (msg instanceof HelloFrame) {
      onHello((HelloFrame) msg);
    } else if (msg instanceof DataFrame && ((DataFrame) msg).home() != DataFrame.NO_HOME) {
      onDataAway((DataFrame) msg);
    } else if (msg instanceof DataFrame) {
      DataFrame data = (DataFrame) msg;
      MuxStream s = stream(data.streamId(), "DATA");
      if (s == null) {
        data.release();
      } else {
        s.onData(data);
      }
    } else if (msg instanceof OpenFrame) {
      onOpen((OpenFrame) msg);
    } else if (msg instanceof WindowUpdateFrame) {
      WindowUpdateFrame w = (WindowUpdateFrame) msg;
      MuxStream s = stream(w.streamId(), "WINDOW_UPDATE");
      if (s != null) {
        s.onWindowUpdate(w.increment(), w.grow(), w.giveBack());
      }
    } else if (msg instanceof RstStreamFrame) {
      RstStreamFrame r = (RstStreamFrame) msg;
      MuxStream s = stream(r.streamId(), "RST_STREAM");
      if (s != null) {
        s.onReset(r.code(), WireCodes.resetName(r.code()) + (r.reason().isEmpty() ? "" : ": " + r.reason()));
      }
    } else if (msg instanceof PingFrame) {
      PingFrame ping = (PingFrame) msg;
      if (!ping.ack()) {
        write(new PingFrame(ping.opaque(), true));
        ctx.flush();
      } else if (outstandingPings.contains(ping.opaque())) {
        // Answers come in order: the ones sent before it are answered too.
        while (outstandingPings.pollFirst() != ping.opaque()) {
          // dropped
        }
        rttNanos = Math.max(0, System.nanoTime() - ping.opaque());
      } else {
        connectionError(WireCodes.GOAWAY_PROTOCOL_ERROR, "PING ACK " + ping.opaque() + " answers no PING sent");
      }
    } else if (msg instanceof ReductionFrame) {
      local.reduction().onControl(this, ((ReductionFrame) msg).message());
    } else if (msg instanceof GoAwayFrame) {
      GoAwayFrame g = (GoAwayFrame) msg;
      log.info("peer {} ({}) sent GOAWAY {}: {}", peerName(), ctx.channel().remoteAddress(), WireCodes.goAwayName(g.code()), g.reason());
      goingAway = true;
      if (g.code() == WireCodes.GOAWAY_NO_ERROR && !retiring) {
        retiring = true;
        listener.sessionRetiring(this);
      }
      markDown("peer sent GOAWAY " + WireCodes.goAwayName(g.code()));
      closeIfGoneAway();
    }
  }

  /** A DATA whose stream lives on another connection of the group: handed to that connection, or ignored when it is gone. */
  private void onDataAway(DataFrame data) {
    if (data.home() == number) {
      data.release();
      connectionError(WireCodes.GOAWAY_PROTOCOL_ERROR, "DATA on stream " + data.streamId() + " names this connection (" + number
          + ") as its stream's other connection");
      return;
    }
    StreamMultiplexer home = group.member(data.home());
    if (home == null) {
      data.release(); // its connection was lost, and its streams reset with it
      return;
    }
    home.receiveFromOtherConnection(data);
  }

  /** A DATA of one of this connection's streams that travelled on another connection of the group. Any thread. */
  void receiveFromOtherConnection(DataFrame data) {
    if (ctx.executor().inEventLoop()) {
      dataFromOtherConnection(data);
      return;
    }
    try {
      ctx.executor().execute(() -> dataFromOtherConnection(data));
    } catch (java.util.concurrent.RejectedExecutionException e) {
      data.release();
    }
  }

  private void dataFromOtherConnection(DataFrame data) {
    MuxStream s = closing ? null : streams.get(data.streamId());
    if (s == null) {
      data.release(); // finished or reset meanwhile (or, from a faulty peer, never opened): ignored
      return;
    }
    s.onData(data);
  }

  private void onHello(HelloFrame hello) {
    if (handshakeTimer != null) {
      handshakeTimer.cancel(false);
    }
    SslHandler tls = ctx.pipeline().get(SslHandler.class);
    String identity = tls == null ? null : TlsContexts.peerIdentity(tls).orElse("");
    PeerAdmission admitted = admission.admit(identity, hello.name(), hello.site());
    if (!admitted.isAdmitted()) {
      connectionError(admitted.refusal().goAwayCode(), "peer refused: " + admitted.reason());
      return;
    }
    peerSite = admitted.site();
    peer = hello;
    if (dialler) {
      number = pooledAs.number();
      group = pooledAs.group();
      group.join(number, this);
    } else {
      number = hello.connection();
      group = local.acceptedGroups().join(hello.name(), hello.session(), number, this);
    }
    long interval = local.keepalive().toNanos();
    lastReadNanos = ctx.executor().ticker().nanoTime();
    keepaliveTimer = ctx.executor().scheduleAtFixedRate(this::keepalive, 0, interval, TimeUnit.NANOSECONDS);
    up = true;
    // The express connection's estimate is its interactive streams' trickle: it learns into a memory of its own, so its cap is carried to no other connection.
    LearnedRates rates = isExpress() ? new LearnedRates() : local.learnedRates();
    unsentLimit = UnsentLimit.start(ctx.channel(), this::holdsBytes, CongestionRestart.forChannel(ctx.channel(), rates, hello.name(), isExpress()));
    log.info("session {} peer {} (site {}, {}) over {} -> {}{}", dialler ? "to" : "from", hello.name(), peerSite,
        tls == null ? "plaintext, unauthenticated" : "TLS identity " + identity, ctx.channel().localAddress(), ctx.channel().remoteAddress(),
        isExpress() ? ", express" : "");
    local.reduction().sessionUp(this);
    listener.sessionUp(this);
  }

  /** True when bytes wait in this node for the socket: in the streams' queues or in the connection's own. */
  private boolean holdsBytes() {
    ChannelOutboundBuffer out = ctx.channel().unsafe().outboundBuffer();
    return (out != null && out.totalPendingWriteBytes() > 0) || !scheduler.isIdle();
  }

  /**
   * Sends a PING. The peer is dead after 3 unanswered PINGs with nothing at all received for an
   * interval; a peer whose answers are merely queued behind data it sends (a saturated link) gets
   * up to 12 intervals. Silent for an interval with one unanswered already, the connection takes no
   * new stream ({@link #unresponsive}).
   */
  private void keepalive() {
    boolean silent = ctx.executor().ticker().nanoTime() - lastReadNanos > local.keepalive().toNanos();
    int unanswered = outstandingPings.size();
    if (unanswered >= MAX_UNANSWERED_PINGS && (silent || unanswered >= MAX_UNANSWERED_PINGS_BUSY)) {
      connectionError(WireCodes.GOAWAY_KEEPALIVE_TIMEOUT, unanswered + " PINGs unanswered");
      return;
    }
    if (silent && unanswered > 0 && !unresponsive) {
      unresponsive = true;
      log.warn("WAN connection {}: nothing from {} for {} ms with {} PING(s) unanswered; new flows pass this connection by until it answers",
          ctx.channel(), peerName(), local.keepalive().toMillis(), unanswered);
    }
    long opaque = System.nanoTime();
    if (!outstandingPings.isEmpty() && opaque <= outstandingPings.peekLast()) {
      opaque = outstandingPings.peekLast() + 1;
    }
    outstandingPings.addLast(opaque);
    write(new PingFrame(opaque, false));
    ctx.flush();
  }

  private void onOpen(OpenFrame open) {
    int id = open.streamId();
    if (isLocal(id)) {
      open.release();
      connectionError(WireCodes.GOAWAY_PROTOCOL_ERROR, "OPEN with an id of our parity: " + id);
      return;
    }
    if (id <= lastPeerId) {
      open.release();
      connectionError(WireCodes.GOAWAY_PROTOCOL_ERROR, "OPEN id " + id + " not above the last one (" + lastPeerId + ")");
      return;
    }
    lastPeerId = id;
    int first = open.content().readableBytes();
    if (first > local.initialStreamWindow()) {
      open.release();
      connectionError(WireCodes.GOAWAY_FLOW_CONTROL, "OPEN " + id + " carries " + first + " bytes, beyond the stream window");
      return;
    }
    if (goingAway || acceptor == null) {
      open.release();
      write(new RstStreamFrame(id, WireCodes.SHUTTING_DOWN, "not accepting streams"));
      ctx.flush();
      return;
    }
    if (peerOpened >= local.maxStreams()) {
      open.release();
      write(new RstStreamFrame(id, WireCodes.REFUSED_STREAM, "max-streams " + local.maxStreams() + " reached"));
      ctx.flush();
      return;
    }
    MuxStream stream = new MuxStream(this, id, peer.initialStreamWindow(), local.initialStreamWindow() - first, 0, first);
    stream.knownToPeer(); // the peer opened it: its DATA may travel on any connection at once
    streams.put(id, stream);
    activeStreams = streams.size();
    peerOpened++;
    acceptor.accept(stream, open);
  }

  /** The open stream {@code id}, or null when the frame is to be ignored (or was a connection error). */
  private MuxStream stream(int id, String what) {
    MuxStream s = streams.get(id);
    if (s != null) {
      return s;
    }
    boolean known = isLocal(id) ? id < nextLocalId : id <= lastPeerId;
    if (!known) {
      connectionError(WireCodes.GOAWAY_PROTOCOL_ERROR, what + " for unknown stream " + id);
    }
    return null;
  }

  private boolean isLocal(int id) {
    return dialler == ((id & 1) == 1);
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
    if (ctx.channel().isWritable()) {
      flushNow();
      ConnectionGroup g = group;
      if (g != null) {
        g.writable(this);
      }
    }
    super.channelWritabilityChanged(ctx);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof WireProtocolException) {
      connectionError(((WireProtocolException) cause).goAwayCode(), cause.getMessage());
    } else {
      if (!closing) {
        log.info("WAN connection {} (peer {}) failed: {}", ctx.channel().remoteAddress(), peerName(), HandshakeFailure.describe(cause, TRUSTED_SETTING));
      }
      closing = true;
      ctx.close();
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    closing = true;
    if (handshakeTimer != null) {
      handshakeTimer.cancel(false);
    }
    if (keepaliveTimer != null) {
      keepaliveTimer.cancel(false);
    }
    if (unsentLimit != null) {
      unsentLimit.cancel(false);
    }
    String reason = "WAN connection to " + peerName() + " (" + ctx.channel().remoteAddress() + ") lost";
    List<MuxStream> lost = new ArrayList<>(streams.values());
    streams.clear();
    scheduler.clear();
    activeStreams = 0;
    for (MuxStream s : lost) {
      s.onConnectionLost(reason);
    }
    ConnectionGroup g = group;
    if (g != null) {
      g.leave(number, this);
      if (!closedGracefully) {
        g.lost(this); // lost: other streams' bytes on it may never arrive (closing itself, this side flushed them first)
      }
    }
    markDown("connection closed");
    super.channelInactive(ctx);
  }

  private void markDown(String reason) {
    if (up) {
      up = false;
      local.reduction().sessionDown(this);
      listener.sessionDown(this, reason);
    }
  }

  @Override
  public String toString() {
    return "WAN connection " + (ctx == null ? "?" : ctx.channel().localAddress() + " -> " + ctx.channel().remoteAddress()) + " (peer " + peerName() + ")";
  }
}
