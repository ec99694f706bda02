package io.tcpopt.servicenode.reuse;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;
import io.tcpopt.common.relay.Upstream;
import io.tcpopt.common.relay.UpstreamListener;
import io.tcpopt.common.transport.Legs;
import io.tcpopt.common.transport.ResetCause;
import io.tcpopt.servicenode.flow.HttpReuseFigures;
import io.tcpopt.servicenode.reuse.HttpFramer.Body;
import io.tcpopt.servicenode.reuse.HttpFramer.Phase;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The far end of one client flow whose HTTP/1.1 requests ride pooled server connections: the
 * far node's upstream for an optimize action with an {@code http-reuse} profile. The bridge hands
 * it the flow's request bytes and gets the responses back; it never asks how they are carried.
 *
 * <p>Exchange by exchange: the request head is framed from the flow's bytes and held; a connection
 * is borrowed from the {@link ServerConnectionPool} (an idle one to the same server and masked
 * client address, else a new one); the head and the body go out on it as they arrive; the
 * response is framed as it comes back and relayed byte for byte; when both messages are complete
 * the connection goes back to the pool, clean and persistent, or is closed. Pipelined requests
 * wait in order, their bytes held within the credit this upstream gives, so responses reach the
 * client in request order. A request that {@code Connection: close} or an HTTP/1.0 request without
 * keep-alive ends the flow after its response, as the server would have; an HTTP/1.1 request's
 * {@code Connection: close} is renamed on its way ({@link ConnectionCloseRewrite}), so that the
 * server keeps the connection for the pool.
 *
 * <p>Falling back: when the next message cannot be framed safely (not HTTP/1.x, malformed or
 * ambiguous framing, {@code Upgrade}, {@code CONNECT}, no request in time) the flow becomes a plain
 * relay: its held and further bytes go, untouched, over a new connection of its own that no other
 * flow will ever use (half-close and resets mirrored). A connection whose exchange went wrong
 * mid-way continues the same way. Never a broken flow, never one client's bytes on another's
 * connection.
 *
 * <p>A pooled connection the server closed just as a request went out (nothing answered) gets
 * the request once more on a new connection, when it is idempotent and was small enough to keep
 * (RFC 9112 §9.3.1). Confined to the pool's event loop: every method is called there.
 */
public final class HttpReuseUpstream implements Upstream {

  /** Client bytes held at most (queued pipelined requests, a head being framed). */
  static final int WINDOW = 256 * 1024;
  /** Response bytes handed to the bridge and not consumed, above which the server is not read. */
  static final int RESPONSE_HIGH = 256 * 1024;
  static final int RESPONSE_LOW = 64 * 1024;
  /** A request this small is kept until answered, to send again if its pooled connection closes. */
  static final int RETRY_LIMIT = 64 * 1024;
  private static final Set<String> IDEMPOTENT = Set.of("GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE");

  private enum Mode { HTTP, TUNNEL, DONE }

  private final ServerConnectionPool pool;
  private final PoolKey key;
  private final EventLoop loop;
  private final Duration firstRequestTimeout;
  private UpstreamListener listener;
  private Promise<Void> endPromise;
  private final ReuseMetrics metrics;

  private Mode mode = Mode.HTTP;
  private final ArrayDeque<ByteBuf> inbound = new ArrayDeque<>();
  private long inboundBytes;
  private final ArrayDeque<ByteBuf> held = new ArrayDeque<>();
  private long heldBytes;
  private boolean clientEnded;
  private boolean creditWanted;

  private final HttpFramer requests = HttpFramer.requests();
  private final HttpFramer responses = HttpFramer.responses();
  private ServerConnection conn;
  private boolean acquiring;
  private boolean fresh;
  private HttpHead request;
  /** Whether the server keeps its connection after the request as sent (see {@link ConnectionCloseRewrite}). */
  private boolean requestKeepsServer;
  private HttpHead response;
  private boolean requestDone;
  private boolean responseDone;
  private boolean responseStarted;
  private boolean poisoned;
  private List<ByteBuf> retryCopy;
  private long retryBytes;

  private boolean tunnelOutputShut;
  private boolean tunnelOutputDone;
  private boolean failed;
  private long unconsumed;
  private ScheduledFuture<?> firstRequestTimer;

  private volatile long requestCount;
  private volatile long reusedCount;
  private volatile String connection;
  private volatile Fallback fallback;

  private HttpReuseUpstream(ServerConnectionPool pool, PoolKey key, ReuseMetrics metrics, Duration firstRequestTimeout) {
    this.pool = pool;
    this.key = key;
    this.loop = pool.loop();
    this.metrics = metrics;
    this.firstRequestTimeout = firstRequestTimeout;
  }

  /**
   * The upstream of a client flow from {@code client} to {@code server}, on the pool's loop (any
   * thread; nothing happens before {@link #start}). {@code transport} is {@link PoolKey#PLAIN} or
   * names the server-TLS settings the pool's connector applies. Without a complete request head
   * within {@code firstRequestTimeout} the flow falls back to a plain relay (a protocol where the
   * server speaks first). Server connections come from the node's own address.
   */
  public static HttpReuseUpstream create(ServerConnectionPool pool, InetSocketAddress client, InetSocketAddress server, String transport,
      ReuseMetrics metrics, Duration firstRequestTimeout) {
    PoolKey key = new PoolKey(server, pool.profile().maskSource(client.getAddress()), transport);
    return new HttpReuseUpstream(pool, key, metrics, firstRequestTimeout);
  }

  /**
   * As {@link #create}, for a flow that keeps the client's address (client-address transparency):
   * its server connections connect from {@code client}'s address and are pooled for that client
   * only ({@link PoolKey#fromClientAddress}), so the server sees each request from its own client.
   */
  public static HttpReuseUpstream createFromClientAddress(ServerConnectionPool pool, InetSocketAddress client, InetSocketAddress server,
      String transport, ReuseMetrics metrics, Duration firstRequestTimeout) {
    PoolKey key = PoolKey.fromClientAddress(server, client.getAddress(), transport);
    return new HttpReuseUpstream(pool, key, metrics, firstRequestTimeout);
  }

  @Override
  public EventLoop eventLoop() {
    return loop;
  }

  @Override
  public void start(UpstreamListener listener) {
    this.listener = listener;
    firstRequestTimer = loop.schedule(this::noRequestInTime, firstRequestTimeout.toNanos(), TimeUnit.NANOSECONDS);
    listener.onCredit();
  }

  /** Per-flow figures for the flow table; any thread. */
  public HttpReuseFigures figures() {
    Fallback f = fallback;
    return new HttpReuseFigures(requestCount, reusedCount, connection, f == null ? null : f.label());
  }

  /** Client bytes this upstream takes now; the bridge stops reading the client at zero. */
  @Override
  public long credit() {
    if (mode == Mode.DONE) {
      return 0;
    }
    return Math.max(0, WINDOW - inboundBytes - heldBytes);
  }

  /** Client bytes (ownership passes). */
  @Override
  public void write(ByteBuf bytes) {
    if (mode == Mode.DONE || !bytes.isReadable()) {
      bytes.release();
      return;
    }
    inbound.add(bytes);
    inboundBytes += bytes.readableBytes();
    pump();
    if (credit() == 0) {
      creditWanted = true;
    }
  }

  @Override
  public void flush() {
    if (conn != null && mode != Mode.DONE) {
      conn.channel.flush();
    }
  }

  /**
   * The client half-closed its side. The future succeeds once the flow ended cleanly towards the
   * server (its last exchange answered, or a plain relay's FIN sent) and fails if it was reset.
   */
  @Override
  public Future<Void> end() {
    if (endPromise != null) {
      return endPromise;
    }
    endPromise = loop.newPromise();
    clientEnded = true;
    if (mode == Mode.DONE) {
      if (failed) {
        endPromise.tryFailure(new IllegalStateException("the flow's upstream was reset"));
      } else {
        endPromise.trySuccess(null); // the flow already ended from the server's side
      }
      return endPromise;
    }
    pump();
    return endPromise;
  }

  /** The bridge gave up on the flow (client reset, idle timeout): drop everything. */
  @Override
  public void reset(ResetCause cause, String reason) {
    if (mode == Mode.DONE) {
      return;
    }
    failed = true;
    boolean tunnel = mode == Mode.TUNNEL;
    stop();
    if (endPromise != null) {
      endPromise.tryFailure(new IllegalStateException(reason));
    }
    ServerConnection c = detach();
    if (c != null) {
      if (tunnel) {
        Legs.reset(c.channel);
      } else {
        pool.release(c, false);
      }
    }
  }

  /** The bridge wrote {@code n} response bytes to the client's socket. */
  @Override
  public void consumed(int n) {
    unconsumed -= n;
    if (conn != null && unconsumed <= RESPONSE_LOW && !conn.channel.config().isAutoRead()) {
      conn.channel.config().setAutoRead(true);
    }
  }

  // ---- client → server -----------------------------------------------------------------------

  private void pump() {
    switch (mode) {
      case HTTP:
        pumpHttp();
        break;
      case TUNNEL:
        drainTunnel();
        break;
      default:
        return;
    }
    if (creditWanted && credit() > 0 && mode != Mode.DONE) {
      creditWanted = false;
      listener.onCredit();
    }
  }

  private void pumpHttp() {
    if (request == null && !frameNextHead()) {
      return;
    }
    if (conn == null) {
      if (!acquiring) {
        acquire();
      }
      return;
    }
    if (!requestDone) {
      sendRequestBody();
    }
    if (mode == Mode.HTTP) {
      completeExchange();
    }
  }

  /** Frames the next request's head into {@code held}; true once it is complete and can be sent. */
  private boolean frameNextHead() {
    while (!inbound.isEmpty()) {
      ByteBuf b = inbound.peek();
      int n = requests.advance(b, b.readerIndex(), b.readableBytes());
      takeInbound(b, n, held);
      heldBytes += n;
      if (requests.phase() == Phase.INVALID) {
        fallBack(requests.error().notHttp1() ? Fallback.NOT_HTTP1 : Fallback.MALFORMED);
        return false;
      }
      if (requests.phase() != Phase.HEAD) {
        return headComplete(requests.head());
      }
    }
    if (clientEnded) {
      if (heldBytes == 0) {
        finish(); // the client is done between requests, as a server would see it
      } else {
        fallBack(Fallback.INCOMPLETE);
      }
    }
    return false;
  }

  private boolean headComplete(HttpHead head) {
    cancelFirstRequestTimer();
    if (head.isConnect()) {
      fallBack(Fallback.CONNECT);
      return false;
    }
    if (head.upgrade()) {
      fallBack(Fallback.UPGRADE);
      return false;
    }
    request = head;
    requestKeepsServer = head.persistent() || head.minorVersion() >= 1 && ConnectionCloseRewrite.keepServerConnection(held);
    requestDone = requests.phase() == Phase.DONE;
    requestCount++;
    metrics.requests.increment();
    return true;
  }

  /** Moves {@code n} bytes of {@code b}, the head of {@code inbound}, to {@code into}. */
  private void takeInbound(ByteBuf b, int n, ArrayDeque<ByteBuf> into) {
    if (n > 0) {
      into.add(n == b.readableBytes() ? inbound.poll() : b.readRetainedSlice(n));
      inboundBytes -= n;
    } else if (!b.isReadable()) {
      inbound.poll().release();
    }
  }

  private void acquire() {
    acquiring = true;
    boolean forTunnel = mode == Mode.TUNNEL;
    boolean isFresh = fresh || forTunnel;
    fresh = false;
    pool.acquire(key, isFresh, (c, failure) -> {
      acquiring = false;
      if (mode == Mode.DONE) {
        if (c != null) {
          pool.release(c, !forTunnel); // nothing was written on it
        }
        return;
      }
      if (failure != null) {
        fail(Legs.connectFailure(failure), "server leg connect failed: " + failure.getMessage());
        return;
      }
      attach(c);
      pump();
    });
  }

  private void attach(ServerConnection c) {
    conn = c;
    c.owner = new OwnerAdapter();
    connection = c.describe();
    if (unconsumed > RESPONSE_HIGH) {
      c.channel.config().setAutoRead(false);
    }
    if (mode == Mode.TUNNEL) {
      return;
    }
    if (c.exchanges > 1) {
      reusedCount++;
      if (IDEMPOTENT.contains(request.method())) {
        retryCopy = new ArrayList<>();
        retryBytes = 0;
      }
    }
    responses.expectResponseTo(request.method());
    while (!held.isEmpty()) {
      ByteBuf b = held.poll();
      heldBytes -= b.readableBytes();
      toServer(b);
    }
    c.channel.flush();
  }

  private void toServer(ByteBuf b) {
    if (retryCopy != null) {
      if (retryBytes + b.readableBytes() <= RETRY_LIMIT) {
        retryCopy.add(b.retainedDuplicate());
        retryBytes += b.readableBytes();
      } else {
        releaseRetryCopy();
      }
    }
    conn.channel.write(b, conn.channel.voidPromise());
  }

  private void sendRequestBody() {
    boolean wrote = false;
    while (!requestDone && !inbound.isEmpty() && conn.channel.isWritable()) {
      ByteBuf b = inbound.peek();
      int n = requests.advance(b, b.readerIndex(), b.readableBytes());
      if (n > 0) {
        ArrayDeque<ByteBuf> part = new ArrayDeque<>(1);
        takeInbound(b, n, part);
        toServer(part.poll());
        wrote = true;
      } else if (!b.isReadable()) {
        inbound.poll().release();
      }
      if (requests.phase() == Phase.INVALID) {
        conn.channel.flush();
        toTunnel(Fallback.MALFORMED);
        return;
      }
      requestDone = requests.phase() == Phase.DONE;
    }
    if (wrote) {
      conn.channel.flush();
    }
    if (!requestDone && inbound.isEmpty() && clientEnded) {
      toTunnel(Fallback.INCOMPLETE); // the server sees the truncated request and the FIN, as without reuse
    }
  }

  private void completeExchange() {
    if (request == null || conn == null || !requestDone || !responseDone) {
      return;
    }
    boolean persistent = request.persistent() && response.persistent();
    boolean reusable = requestKeepsServer && response.persistent() && !poisoned && responses.framingReusable();
    releaseRetryCopy();
    ServerConnection c = detach();
    pool.release(c, reusable);
    request = null;
    response = null;
    requestDone = false;
    responseDone = false;
    responseStarted = false;
    poisoned = false;
    requests.next();
    responses.next();
    if (!persistent) {
      finish(); // Connection: close, or HTTP/1.0 without keep-alive: the flow ends here
      return;
    }
    pumpHttp(); // a pipelined request may be waiting
  }

  // ---- server → client -----------------------------------------------------------------------

  private void fromServer(ServerConnection c, ByteBuf buf) {
    if (c != conn || mode == Mode.DONE) {
      buf.release();
      return;
    }
    if (mode == Mode.TUNNEL) {
      deliver(buf);
      return;
    }
    responseStarted = true;
    releaseRetryCopy();
    int index = buf.readerIndex();
    int length = buf.readableBytes();
    while (length > 0 && mode == Mode.HTTP) {
      if (responseDone) {
        poisoned = true; // bytes beyond the response: the server and this framer disagree
        length = 0;
        break;
      }
      int n = responses.advance(buf, index, length);
      if (n > 0) {
        deliver(buf.retainedSlice(index, n));
        index += n;
        length -= n;
      }
      Phase phase = responses.phase();
      if (phase == Phase.INVALID) {
        poisoned = true;
        toTunnel(Fallback.MALFORMED);
      } else if (phase == Phase.BODY && responses.body() == Body.UNTIL_CLOSE) {
        response = responses.head();
        toTunnel(Fallback.UNTIL_CLOSE);
      } else if (phase == Phase.DONE && responses.head().interim()) {
        responses.next();
        responses.expectResponseTo(request.method());
      } else if (phase == Phase.DONE) {
        response = responses.head();
        responseDone = true;
        if (!requestDone) {
          toTunnel(Fallback.EARLY_RESPONSE);
        }
      }
    }
    if (length > 0) {
      deliver(buf.retainedSlice(index, length)); // the rest of a connection that became a plain relay
    }
    buf.release();
    if (mode == Mode.HTTP && responseDone) {
      listener.onDataComplete(); // the connection goes back to the pool: its read batch ends for this flow here
      completeExchange();
    }
  }

  private void deliver(ByteBuf b) {
    unconsumed += b.readableBytes();
    if (unconsumed > RESPONSE_HIGH && conn != null && conn.channel.config().isAutoRead()) {
      conn.channel.config().setAutoRead(false);
    }
    listener.onData(b);
  }

  private void serverEnded(ServerConnection c) {
    if (c != conn) {
      return;
    }
    if (mode == Mode.TUNNEL) {
      listener.onEnd();
      if (tunnelOutputDone) {
        stopAndClose();
      }
      return;
    }
    serverLost("server closed the connection");
  }

  private void serverClosed(ServerConnection c, boolean reset, String why) {
    if (c != conn) {
      return;
    }
    conn.owner = null;
    if (mode == Mode.TUNNEL) {
      conn = null;
      if (c.inputEnded && !reset) {
        stop(); // FIN seen and passed on; nothing more comes from the server
      } else {
        fail(ResetCause.CONNECTION_RESET, why);
      }
      return;
    }
    serverLost(why);
  }

  /** The lent connection ended in the middle of an exchange. */
  private void serverLost(String why) {
    ServerConnection c = detach();
    metrics.closed(ReuseMetrics.CloseReason.SERVER_CLOSED);
    c.channel.close();
    if (retryCopy != null && requestDone && !responseStarted) {
      metrics.retries.increment();
      for (ByteBuf b : retryCopy) {
        held.add(b);
        heldBytes += b.readableBytes();
      }
      retryCopy = null;
      fresh = true;
      acquire();
      return;
    }
    fail(ResetCause.CONNECTION_RESET, responseStarted ? why + " in the middle of a response" : why + " without a response");
  }

  // ---- plain relay ---------------------------------------------------------------------------

  /** Falls back between exchanges: a new connection of this flow's own carries everything from here. */
  private void fallBack(Fallback why) {
    cancelFirstRequestTimer();
    noteFallback(why);
    mode = Mode.TUNNEL;
    acquire();
  }

  /** Falls back on the connection of the current exchange: it carries the rest as it is. */
  private void toTunnel(Fallback why) {
    noteFallback(why);
    mode = Mode.TUNNEL;
    releaseRetryCopy();
    drainTunnel();
  }

  private void noteFallback(Fallback why) {
    fallback = why;
    metrics.fallback(why);
  }

  private void drainTunnel() {
    if (conn == null) {
      return; // connecting
    }
    boolean wrote = false;
    while (!held.isEmpty()) {
      ByteBuf b = held.poll();
      heldBytes -= b.readableBytes();
      conn.channel.write(b, conn.channel.voidPromise());
      wrote = true;
    }
    while (!inbound.isEmpty() && conn.channel.isWritable()) {
      ByteBuf b = inbound.poll();
      inboundBytes -= b.readableBytes();
      conn.channel.write(b, conn.channel.voidPromise());
      wrote = true;
    }
    if (wrote) {
      conn.channel.flush();
    }
    if (clientEnded && inbound.isEmpty() && !tunnelOutputShut) {
      tunnelOutputShut = true;
      ServerConnection c = conn;
      Legs.shutdownOutputAfterWrites(c.channel).addListener(f -> {
        if (!f.isSuccess()) {
          fail(ResetCause.CONNECTION_RESET, "server leg lost bytes before its end: " + f.cause());
          return;
        }
        tunnelOutputDone = true;
        endDone();
        if (c.inputEnded && c == conn) {
          stopAndClose();
        }
      });
    }
  }

  // ---- endings -------------------------------------------------------------------------------

  private void noRequestInTime() {
    firstRequestTimer = null;
    if (mode == Mode.HTTP && request == null && requestCount == 0) {
      fallBack(Fallback.NO_REQUEST);
    }
  }

  private void cancelFirstRequestTimer() {
    if (firstRequestTimer != null) {
      firstRequestTimer.cancel(false);
      firstRequestTimer = null;
    }
  }

  /** Ends the flow cleanly towards the client; later client bytes are dropped. */
  private void finish() {
    stop();
    endDone();
    listener.onEnd();
  }

  private void endDone() {
    if (endPromise != null) {
      endPromise.trySuccess(null);
    }
  }

  /** Both directions of a plain relay are done: close its connection once its output drained. */
  private void stopAndClose() {
    ServerConnection c = detach();
    stop();
    if (c != null) {
      c.channel.close();
    }
  }

  private void fail(ResetCause cause, String reason) {
    if (mode == Mode.DONE) {
      return;
    }
    failed = true;
    stop();
    ServerConnection c = detach();
    if (c != null) {
      Legs.reset(c.channel);
    }
    if (endPromise != null) {
      endPromise.tryFailure(new IllegalStateException(reason));
    }
    listener.onReset(cause, reason);
  }

  private void stop() {
    mode = Mode.DONE;
    cancelFirstRequestTimer();
    releaseAll(inbound);
    releaseAll(held);
    inboundBytes = 0;
    heldBytes = 0;
    releaseRetryCopy();
  }

  private ServerConnection detach() {
    ServerConnection c = conn;
    conn = null;
    if (c != null) {
      c.owner = null;
    }
    return c;
  }

  private void releaseRetryCopy() {
    if (retryCopy != null) {
      retryCopy.forEach(ByteBuf::release);
      retryCopy = null;
    }
  }

  private static void releaseAll(ArrayDeque<ByteBuf> q) {
    ByteBuf b;
    while ((b = q.poll()) != null) {
      b.release();
    }
  }

  /** Connects a lent {@link ServerConnection}'s events to this flow. */
  private final class OwnerAdapter implements ServerConnection.Owner {
    @Override
    public void serverBytes(ServerConnection c, ByteBuf bytes) {
      fromServer(c, bytes);
    }

    @Override
    public void serverEnded(ServerConnection c) {
      HttpReuseUpstream.this.serverEnded(c);
    }

    @Override
    public void serverClosed(ServerConnection c, boolean reset, String why) {
      HttpReuseUpstream.this.serverClosed(c, reset, why);
    }

    @Override
    public void serverReadComplete(ServerConnection c) {
      if (c == conn) {
        listener.onDataComplete();
      }
    }

    @Override
    public void serverWritabilityChanged(ServerConnection c) {
      if (c == conn && c.channel.isWritable()) {
        pump();
      }
    }
  }
}
