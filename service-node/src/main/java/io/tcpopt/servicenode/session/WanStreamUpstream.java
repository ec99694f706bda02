package io.tcpopt.servicenode.session;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;
import io.tcpopt.common.policy.DataReduction;
import io.tcpopt.common.relay.Upstream;
import io.tcpopt.common.relay.UpstreamListener;
import io.tcpopt.common.transport.ResetCause;
import io.tcpopt.reduction.PeerReduction;
import io.tcpopt.reduction.ReductionException;
import io.tcpopt.servicenode.wire.OpenFrame;
import io.tcpopt.servicenode.wire.ServerReuse;
import io.tcpopt.servicenode.wire.WireCodes;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A stream of the inter-node session as an {@link Upstream}: the data path's only view of the
 * WAN. Credit is the stream's send window, bounded by the room in its send queue; bytes
 * delivered to the bridge are granted back to the peer (WINDOW_UPDATE) as the bridge reports them
 * {@link #consumed}. Runs on the WAN connection's event loop.
 *
 * <p>A stream this node opens ({@link #open}) is opened lazily: its OPEN leaves with the first
 * bytes written (up to what an OPEN may carry, the rest follows as DATA), with the end if the leg
 * ends first, or empty after the coalescing delay for server-speaks-first protocols. Until then
 * its credit is the peer's initial stream window. A stream the peer opened ({@link #accepted})
 * delivers the OPEN's first bytes when started.
 *
 * <p>With data reduction ({@link DataReduction}, asked by the opening node's policy and carried in
 * the OPEN's flags for both directions), the stream's bytes pass a {@link StreamReduction}: what
 * the bridge writes is encoded before it is queued for the scheduler (one segment per DATA frame),
 * what the peer sends is decoded in order before the bridge sees it; credit counts LAN (decoded)
 * bytes both ways. Such an OPEN carries no first bytes. A side whose peer has no chunk cache (its
 * HELLO) sends plain.
 *
 * <p>{@link #end} succeeds only when the peer acknowledged every byte before the END_STREAM (it
 * wrote them to its leg, see {@link MuxStream}); a reset or a lost connection before that fails
 * it, so the bridge resets its leg instead of closing it cleanly.
 *
 * <p>RST_STREAM codes map to and from {@link ResetCause}.
 */
public final class WanStreamUpstream implements Upstream, StreamHandler {
  private final StreamMultiplexer connection;
  private final EventLoop loop;
  /** Null until the OPEN is out (opening side) or the peer's OPEN arrived (accepted side). */
  private MuxStream stream;
  /** What to open, until it is opened; null on the accepted side. */
  private Opening opening;
  /** The peer's first bytes, until {@link #start}. */
  private ByteBuf firstBytes;
  private UpstreamListener listener;
  private boolean gone;
  /** The stream's data reduction, or null when its bytes cross as they are. */
  private StreamReduction reduction;
  /** Why an accepted stream cannot be served (its data reduction), or null. */
  private String unusable;
  /** The peer's END_STREAM arrived; delivered to the bridge once the decoder has output it all. */
  private boolean endReceived;
  private boolean endDelivered;
  /** This side's end: succeeds once the peer wrote every byte before it to its leg; null before {@link #end}. */
  private Promise<Void> endDone;
  /** Where the stream reserves its windows' growth; handed to the stream once it exists. */
  private StreamBudget budget = StreamBudget.UNLIMITED;
  private volatile long wanBytesSent;
  private volatile long wanBytesReceived;
  /**
   * How long the open chunk's bytes wait for the leg's next bytes (data reduction with
   * deduplication): the latency a message's last partial chunk gains, at most.
   */
  static final long TAIL_HOLD_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
  /** When the bridge last flushed while the open chunk held bytes. */
  private long lastFlushNanos;
  /** Sends the held open chunk once the leg is quiet; null when none is due. */
  private ScheduledFuture<?> tailTimer;

  /** Opening-side state, dropped once the OPEN is out. */
  private static final class Opening {
    final long flowId;
    final InetSocketAddress source;
    final InetSocketAddress destination;
    final int openFlags;
    final Duration coalescing;
    final DataReduction dataReduction;
    final ServerReuse serverReuse;
    ScheduledFuture<?> timer;

    Opening(long flowId, InetSocketAddress source, InetSocketAddress destination, int openFlags, Duration coalescing,
        DataReduction dataReduction, ServerReuse serverReuse) {
      this.flowId = flowId;
      this.source = source;
      this.destination = destination;
      this.openFlags = openFlags;
      this.coalescing = coalescing;
      this.dataReduction = dataReduction;
      this.serverReuse = serverReuse;
    }
  }

  private WanStreamUpstream(StreamMultiplexer connection) {
    this.connection = connection;
    this.loop = connection.channel().eventLoop();
  }

  /**
   * A stream to be opened on {@code connection} for the flow {@code source → destination}, which
   * holds a reservation of {@link StreamMultiplexer#reserveOpen} (given back once the OPEN is out,
   * or when the upstream ends before). Any thread; nothing is sent before {@link #start}.
   *
   * @param openFlags the OPEN's flags ({@link io.tcpopt.servicenode.wire.OpenFrame#FLAG_TRANSPARENT_SOURCE})
   * @param coalescing how long an OPEN waits for the client's first bytes
   * @param dataReduction the policy's data reduction for both directions (used when both nodes have a chunk cache)
   * @param serverReuse the policy's HTTP server-reuse profile for the far node, or null
   */
  public static WanStreamUpstream open(StreamMultiplexer connection, long flowId, InetSocketAddress source, InetSocketAddress destination,
      int openFlags, Duration coalescing, DataReduction dataReduction, ServerReuse serverReuse) {
    WanStreamUpstream u = new WanStreamUpstream(connection);
    u.opening = new Opening(flowId, source, destination, openFlags, coalescing, dataReduction == null ? DataReduction.OFF : dataReduction,
        serverReuse);
    return u;
  }

  /**
   * The upstream of a stream the peer opened (see {@link StreamAcceptor}); takes a share of the
   * OPEN's first bytes ({@code open} itself stays with the caller). Until {@link #start}, frames
   * for the stream must not arrive: start it (or reset it) before the acceptor returns.
   */
  public static WanStreamUpstream accepted(MuxStream stream, ByteBuf firstBytes) {
    WanStreamUpstream u = new WanStreamUpstream(stream.connection());
    u.stream = stream;
    u.firstBytes = firstBytes.retain();
    u.wanBytesReceived = u.firstBytes.readableBytes();
    stream.handler(u);
    return u;
  }

  /**
   * As {@link #accepted(MuxStream, ByteBuf)} with the OPEN's first bytes, and its data reduction
   * (open-flags): when this node cannot honour it, {@link #unusable()} says why.
   */
  public static WanStreamUpstream accepted(MuxStream stream, OpenFrame open) {
    WanStreamUpstream u = accepted(stream, open.content());
    DataReduction mode = OpenFrame.dataReduction(open.openFlags());
    if (!mode.isOff()) {
      PeerReduction peer = u.connection.reduction().peer(u.connection);
      if (peer == null) {
        u.unusable = "data reduction asked for, but this node or the peer has no chunk cache";
      } else if (u.firstBytes.isReadable()) {
        u.unusable = "OPEN with data reduction carries first bytes";
      } else {
        u.startReduction(peer, mode);
      }
    }
    return u;
  }

  private void startReduction(PeerReduction peer, DataReduction mode) {
    reduction = new StreamReduction(peer, mode, stream.maxSegmentPayload(), this::decoderWakeup);
    stream.encodeSegments();
  }

  /**
   * Where the stream reserves what its windows grow by (the flow's admission claim). Set before
   * {@link #start}, on the connection's event loop or before the upstream is shared.
   */
  public void budget(StreamBudget budget) {
    this.budget = budget;
    if (stream != null) {
      stream.budget(budget);
    }
  }

  /** Why this accepted stream cannot be served (reset it with PROTOCOL_ERROR), or null. */
  public String unusable() {
    return unusable;
  }

  /** The stream's data reduction, {@link DataReduction#OFF} when its bytes cross as they are. */
  public DataReduction dataReduction() {
    StreamReduction r = reduction;
    return r == null ? DataReduction.OFF : r.mode();
  }

  /** Payload bytes this stream sent over the WAN (OPEN first bytes and DATA). Any thread. */
  public long wanBytesSent() {
    return wanBytesSent;
  }

  /** Payload bytes this stream received over the WAN. Any thread. */
  public long wanBytesReceived() {
    return wanBytesReceived;
  }


  /** The peer node's name (from its HELLO). */
  public String peerName() {
    return connection.peerName();
  }

  /** The WAN connection carrying the stream (its figures: RTT, cwnd, retransmits). */
  public StreamMultiplexer connection() {
    return connection;
  }

  @Override
  public EventLoop eventLoop() {
    return loop;
  }

  @Override
  public void start(UpstreamListener listener) {
    this.listener = listener;
    if (opening != null) {
      opening.timer = loop.schedule(() -> openWith(Unpooled.EMPTY_BUFFER), opening.coalescing.toNanos(), TimeUnit.NANOSECONDS);
    } else if (firstBytes != null) {
      stream.grantStartCredit(); // the answer to the OPEN: the opening side's sender may send this much more at once
      stream.flush();
      ByteBuf first = firstBytes;
      firstBytes = null;
      if (first.isReadable()) {
        listener.onData(first);
        listener.onDataComplete();
      } else {
        first.release();
      }
    }
  }

  @Override
  public long credit() {
    if (gone) {
      return 0;
    }
    long credit = stream == null ? (opening == null ? 0 : connection.peerInitialWindow()) : stream.sendCredit();
    return reduction == null ? credit : Math.max(0, credit - reduction.unsent());
  }

  @Override
  public void write(ByteBuf data) {
    if (gone) {
      data.release();
    } else if (stream == null) {
      openWith(data);
    } else {
      send(data);
    }
  }

  /** Queues bytes on the stream (its scheduler cuts them into DATA frames), or passes them through the encoder. */
  private void send(ByteBuf data) {
    if (reduction != null) {
      reduction.write(data);
      if (stream.sendCredit() <= reduction.unsent()) {
        // The bytes the encoder holds use up the credit: flush them now, or the bridge would wait
        // for credit that no WINDOW_UPDATE brings.
        reduction.flush();
      }
      wanBytesSent += reduction.send(stream);
      return;
    }
    wanBytesSent += data.readableBytes();
    stream.writeData(data, false);
  }

  /** Sends the OPEN with as much of {@code data} as it may carry, the rest as DATA. Returns false when no stream could be opened. */
  private boolean openWith(ByteBuf data) {
    Opening o = opening;
    if (o == null || gone) {
      data.release();
      return stream != null;
    }
    if (o.timer != null) {
      o.timer.cancel(false);
    }
    PeerReduction peer = o.dataReduction.isOff() ? null : connection.reduction().peer(connection);
    int limit = peer == null ? connection.maxOpenPayload() : 0;
    ByteBuf first = data.readableBytes() <= limit ? data : data.readRetainedSlice(limit);
    int openFlags = o.openFlags | (peer == null ? 0 : OpenFrame.flags(o.dataReduction));
    MuxStream s = connection.open(o.flowId, o.source, o.destination, openFlags, o.serverReuse, first, this);
    // Given back only now that the stream counts as open (or never will): given back before, another
    // flow could reserve the slot this one is about to take, and find none when it opens.
    connection.releaseOpen();
    opening = null;
    if (s == null) {
      first.release();
      if (first != data) {
        data.release();
      }
      gone = true;
      listener.onReset(ResetCause.NO_ROUTE, "WAN connection to " + connection.peerName() + " could not open a stream");
      return false;
    }
    stream = s;
    s.budget(budget);
    s.grantStartCredit();
    s.flush(); // the OPEN and the start credit leave together
    wanBytesSent += first.readableBytes();
    if (peer != null) {
      startReduction(peer, o.dataReduction);
    }
    if (first != data) {
      send(data);
    }
    return true;
  }

  /**
   * The bridge's read burst ended. With data reduction the chunks that ended leave now, the open
   * chunk's bytes only once the leg has been quiet for {@link #TAIL_HOLD_NANOS} (or the chunk ends
   * first, or the credit runs out): in a transfer read in small pieces, each flushed tail would
   * cross as a literal, even of a chunk the peer holds.
   */
  @Override
  public void flush() {
    if (stream != null && !gone) {
      if (reduction == null) {
        stream.flush();
        return;
      }
      reduction.flushEnded();
      if (reduction.holdsOpenBytes()) {
        holdTail();
      }
      sendReduced();
    }
  }

  /** Sends the chunks the encoder sealed and flushes the stream. */
  private void sendReduced() {
    wanBytesSent += reduction.send(stream);
    stream.flush();
  }

  private void holdTail() {
    lastFlushNanos = System.nanoTime();
    if (tailTimer == null) {
      tailTimer = loop.schedule(this::tailQuiet, TAIL_HOLD_NANOS, TimeUnit.NANOSECONDS);
    }
  }

  /** The hold expired: sends the open chunk's bytes unless the leg flushed again meanwhile (then waits on). */
  private void tailQuiet() {
    tailTimer = null;
    StreamReduction r = reduction;
    if (stream == null || gone || r == null || !r.holdsOpenBytes()) {
      return;
    }
    long quiet = System.nanoTime() - lastFlushNanos;
    if (quiet < TAIL_HOLD_NANOS) {
      tailTimer = loop.schedule(this::tailQuiet, TAIL_HOLD_NANOS - quiet, TimeUnit.NANOSECONDS);
      return;
    }
    r.flush();
    sendReduced();
  }

  private void cancelTail() {
    if (tailTimer != null) {
      tailTimer.cancel(false);
      tailTimer = null;
    }
  }

  @Override
  public Future<Void> end() {
    if (!gone && stream == null && !openWith(Unpooled.EMPTY_BUFFER)) {
      return loop.newFailedFuture(new IllegalStateException("no stream could be opened"));
    }
    if (gone) {
      return loop.newFailedFuture(new IllegalStateException("stream reset"));
    }
    if (reduction != null) {
      cancelTail();
      reduction.finish();
      wanBytesSent += reduction.send(stream);
      reduction.closeEncoder(true);
    }
    endDone = loop.newPromise();
    stream.writeData(Unpooled.EMPTY_BUFFER, true);
    stream.flush();
    return endDone;
  }

  @Override
  public void consumed(int bytes) {
    if (stream != null && !gone) {
      stream.consumed(bytes);
    }
  }

  @Override
  public void reset(ResetCause cause, String reason) {
    if (gone) {
      return;
    }
    gone = true;
    if (opening != null) {
      if (opening.timer != null) {
        opening.timer.cancel(false);
      }
      connection.releaseOpen();
    }
    opening = null;
    if (firstBytes != null) {
      firstBytes.release();
      firstBytes = null;
    }
    if (reduction != null) {
      cancelTail();
      reduction.close(false);
    }
    failEnd(reason);
    if (stream != null) {
      stream.reset(code(cause), reason);
    }
  }

  private void failEnd(String reason) {
    if (endDone != null) {
      endDone.tryFailure(new IllegalStateException("stream reset before the peer acknowledged every byte: " + reason));
    }
  }

  @Override
  public void onEndDelivered() {
    if (!gone && endDone != null) {
      endDone.trySuccess(null);
    }
  }

  // ---- the stream's events -------------------------------------------------------------------

  @Override
  public void onData(ByteBuf data, boolean endStream) {
    onData(data, endStream, false);
  }

  @Override
  public void onData(ByteBuf data, boolean endStream, boolean encoded) {
    if (gone || listener == null) {
      data.release();
      return;
    }
    wanBytesReceived += data.readableBytes();
    if (encoded != (reduction != null) && data.isReadable()) {
      data.release();
      fail(encoded ? "encoded DATA on a stream without data reduction" : "plain DATA on a stream with data reduction");
      return;
    }
    if (reduction != null) {
      if (data.isReadable()) {
        try {
          reduction.offer(data);
        } catch (ReductionException e) {
          fail("malformed segment: " + e.getMessage());
          return;
        }
      } else {
        data.release();
      }
      endReceived |= endStream;
      drainDecoded();
      return;
    }
    if (data.isReadable()) {
      listener.onData(data);
      listener.onDataComplete();
    } else {
      data.release();
    }
    if (endStream && !gone) {
      listener.onEnd();
    }
  }

  /** Hands the bridge what the decoder has in order, then the peer's end once all of it went. */
  private void drainDecoded() {
    if (gone || reduction == null || listener == null) {
      return;
    }
    boolean delivered = false;
    try {
      for (ByteBuf b; (b = reduction.poll()) != null; ) {
        delivered = true;
        listener.onData(b);
        if (gone) {
          return;
        }
      }
    } catch (ReductionException e) {
      fail(e.getMessage());
      return;
    }
    if (delivered) {
      listener.onDataComplete();
    }
    if (endReceived && !endDelivered && !gone && !reduction.waiting()) {
      endDelivered = true;
      listener.onEnd();
    }
  }

  /** Chunks the decoder waited for arrived (or will not): any thread. */
  private void decoderWakeup() {
    loop.execute(this::drainDecoded);
  }

  /** A data-reduction failure of this stream: reset it both ways, never a corrupt byte. */
  private void fail(String why) {
    if (gone) {
      return;
    }
    reset(ResetCause.PROTOCOL_ERROR, "data reduction: " + why);
    listener.onReset(ResetCause.PROTOCOL_ERROR, "data reduction: " + why);
  }

  @Override
  public void onWindowUpdate() {
    onWindowUpdate(0);
  }

  @Override
  public void onWindowUpdate(int increment) {
    if (!gone && listener != null) {
      if (reduction != null) {
        reduction.acknowledged(increment);
      }
      listener.onCredit();
    }
  }

  @Override
  public void onSendRoom() {
    if (!gone && listener != null && stream != null) {
      listener.onCredit();
    }
  }

  @Override
  public void onReset(int code, String reason) {
    if (gone) {
      return;
    }
    gone = true;
    if (reduction != null) {
      cancelTail();
      reduction.close(false);
    }
    if (listener != null) {
      listener.onReset(cause(code), "WAN stream reset: " + reason);
    }
    failEnd(reason);
  }

  static int code(ResetCause cause) {
    switch (cause) {
      case CONNECT_REFUSED: return WireCodes.CONNECT_REFUSED;
      case CONNECT_TIMEOUT: return WireCodes.CONNECT_TIMEOUT;
      case IDLE_TIMEOUT: return WireCodes.IDLE_TIMEOUT;
      case NO_ROUTE: return WireCodes.NO_ROUTE;
      case REFUSED: return WireCodes.REFUSED_STREAM;
      case SHUTTING_DOWN: return WireCodes.SHUTTING_DOWN;
      case PROTOCOL_ERROR: return WireCodes.PROTOCOL_ERROR;
      case INTERNAL: return WireCodes.INTERNAL;
      default: return WireCodes.CONNECTION_RESET;
    }
  }

  static ResetCause cause(int code) {
    switch (code) {
      case WireCodes.CONNECT_REFUSED: return ResetCause.CONNECT_REFUSED;
      case WireCodes.CONNECT_TIMEOUT: return ResetCause.CONNECT_TIMEOUT;
      case WireCodes.IDLE_TIMEOUT: return ResetCause.IDLE_TIMEOUT;
      case WireCodes.NO_ROUTE: return ResetCause.NO_ROUTE;
      case WireCodes.REFUSED_STREAM: return ResetCause.REFUSED;
      case WireCodes.SHUTTING_DOWN: return ResetCause.SHUTTING_DOWN;
      case WireCodes.PROTOCOL_ERROR: case WireCodes.FLOW_CONTROL_ERROR: return ResetCause.PROTOCOL_ERROR;
      case WireCodes.INTERNAL: return ResetCause.INTERNAL;
      default: return ResetCause.CONNECTION_RESET;
    }
  }
}
