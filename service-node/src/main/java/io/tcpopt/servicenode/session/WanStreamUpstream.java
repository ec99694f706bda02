package io.tcpopt.servicenode.session;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import io.tcpopt.common.relay.Upstream;
import io.tcpopt.common.relay.UpstreamListener;
import io.tcpopt.common.transport.ResetCause;
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

  /** Opening-side state, dropped once the OPEN is out. */
  private static final class Opening {
    final long flowId;
    final InetSocketAddress source;
    final InetSocketAddress destination;
    final int openFlags;
    final Duration coalescing;
    ScheduledFuture<?> timer;

    Opening(long flowId, InetSocketAddress source, InetSocketAddress destination, int openFlags, Duration coalescing) {
      this.flowId = flowId;
      this.source = source;
      this.destination = destination;
      this.openFlags = openFlags;
      this.coalescing = coalescing;
    }
  }

  private WanStreamUpstream(StreamMultiplexer connection) {
    this.connection = connection;
    this.loop = connection.channel().eventLoop();
  }

  /**
   * A stream to be opened on {@code connection} for the flow {@code source → destination}. Any
   * thread; nothing is sent before {@link #start}.
   *
   * @param openFlags the OPEN's flags ({@link io.tcpopt.servicenode.wire.OpenFrame#FLAG_TRANSPARENT_SOURCE})
   * @param coalescing how long an OPEN waits for the client's first bytes
   */
  public static WanStreamUpstream open(StreamMultiplexer connection, long flowId, InetSocketAddress source, InetSocketAddress destination,
      int openFlags, Duration coalescing) {
    WanStreamUpstream u = new WanStreamUpstream(connection);
    u.opening = new Opening(flowId, source, destination, openFlags, coalescing);
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
    stream.handler(u);
    return u;
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
    if (stream == null) {
      return opening == null ? 0 : connection.peerInitialWindow();
    }
    return stream.sendCredit();
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

  /** Queues bytes on the stream; its scheduler cuts them into DATA frames. */
  private void send(ByteBuf data) {
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
    int limit = connection.maxOpenPayload();
    ByteBuf first = data.readableBytes() <= limit ? data : data.readRetainedSlice(limit);
    MuxStream s = connection.open(o.flowId, o.source, o.destination, o.openFlags, first, this);
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
    if (first != data) {
      send(data);
    }
    return true;
  }

  @Override
  public void flush() {
    if (stream != null && !gone) {
      stream.flush();
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
    stream.writeData(Unpooled.EMPTY_BUFFER, true);
    stream.flush();
    return loop.newSucceededFuture(null);
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
    if (opening != null && opening.timer != null) {
      opening.timer.cancel(false);
    }
    opening = null;
    if (firstBytes != null) {
      firstBytes.release();
      firstBytes = null;
    }
    if (stream != null) {
      stream.reset(code(cause), reason);
    }
  }

  // ---- the stream's events -------------------------------------------------------------------

  @Override
  public void onData(ByteBuf data, boolean endStream) {
    if (gone || listener == null) {
      data.release();
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

  @Override
  public void onWindowUpdate() {
    if (!gone && listener != null) {
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
    if (listener != null) {
      listener.onReset(cause(code), "WAN stream reset: " + reason);
    }
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
