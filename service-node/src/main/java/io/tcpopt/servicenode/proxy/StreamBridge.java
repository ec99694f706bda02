package io.tcpopt.servicenode.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.tcpopt.servicenode.flow.FlowEntry;
import io.tcpopt.servicenode.flow.FlowEntry.WanFigures;
import io.tcpopt.servicenode.flow.FlowState;
import io.tcpopt.servicenode.session.MuxStream;
import io.tcpopt.servicenode.session.StreamHandler;
import io.tcpopt.servicenode.session.StreamMultiplexer;
import io.tcpopt.servicenode.wire.WireCodes;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Joins one local TCP leg to one stream of a WAN connection. All state is confined to the WAN
 * connection's event loop; when the leg sits on another loop its events hop over with {@code
 * execute} (at the far node both are always on one loop).
 *
 * <p>Towards the WAN, bytes read from the leg are sent within the stream's credit; when credit runs
 * out (or the WAN connection is unwritable) reading the leg stops, so its end host sees a zero
 * window. Towards the leg, bytes are written as they arrive and credit is returned only once the
 * leg's socket took them: the node holds at most one stream window plus one read per flow.
 */
public final class StreamBridge implements StreamHandler {
  private static final Logger log = LoggerFactory.getLogger(StreamBridge.class);

  private final FlowEntry flow;
  private final boolean legIsClient;
  private final EventLoop loop;
  private final LegOptions options;
  private final LegTuning tuning;

  private MuxStream stream;
  private Channel leg;
  private final ArrayDeque<ByteBuf> toWan = new ArrayDeque<>();
  private long toWanBytes;
  private final ArrayDeque<ByteBuf> toLegQueue = new ArrayDeque<>();
  private long toLegQueued;
  private long toLegInFlight;
  private boolean legInputEnded;
  private boolean endSent;
  private boolean remoteEnded;
  private boolean legOutputShut;
  private boolean finished;

  // Opening side only: where and what to open.
  private StreamMultiplexer opener;
  private InetSocketAddress openSource;
  private InetSocketAddress openDestination;
  private ScheduledFuture<?> openTimer;
  private ChannelFuture connecting;

  private StreamBridge(FlowEntry flow, boolean legIsClient, EventLoop loop, LegOptions options, LegTuning tuning) {
    this.flow = flow;
    this.legIsClient = legIsClient;
    this.loop = loop;
    this.options = options;
    this.tuning = tuning;
  }

  /**
   * Starts an optimized flow at the intercepting node: {@code client} (accepted, not reading yet)
   * is joined to a new stream on {@code connection}. The OPEN leaves with the client's first bytes,
   * or empty after the coalescing delay for server-speaks-first protocols. {@code tuning} (the
   * client leg's profile) is applied to the client's socket at once.
   */
  public static void startClientSide(FlowEntry flow, Channel client, StreamMultiplexer connection, InetSocketAddress source,
      InetSocketAddress destination, LegOptions options, LegTuning tuning, Supplier<WanFigures> figures) {
    StreamBridge b = new StreamBridge(flow, true, connection.channel().eventLoop(), options, tuning);
    b.opener = connection;
    b.openSource = source;
    b.openDestination = destination;
    b.leg = client;
    flow.carriedBy(connection.peerName(), figures);
    flow.state(FlowState.OPEN);
    b.configureLeg(client);
    flow.localLeg(tuning.apply(client));
    b.run(() -> {
      b.openTimer = b.loop.schedule(b::tryOpen, options.openCoalescing().toNanos(), TimeUnit.NANOSECONDS);
      client.config().setAutoRead(true);
    });
  }

  /**
   * Serves a stream the peer opened at the far node: queues the OPEN's first bytes, connects to the
   * server on the stream's own event loop, and joins the leg once connected. A refused or timed-out
   * connect resets the stream (the client sees a reset). The server leg's profile ({@code tuning})
   * is applied before the connect (buffers) and completely once connected.
   */
  public static void startServerSide(FlowEntry flow, MuxStream stream, ByteBuf firstBytes, InetSocketAddress bindSource,
      LegOptions options, LegTuning tuning, io.netty.bootstrap.Bootstrap bootstrap) {
    StreamBridge b = new StreamBridge(flow, false, stream.eventLoop(), options, tuning);
    b.stream = stream;
    stream.handler(b);
    b.onData(firstBytes, false);
    options.configure(bootstrap.group(stream.eventLoop()));
    tuning.beforeConnect(bootstrap);
    bootstrap.handler(new ChannelInboundHandlerAdapter() {
      @Override
      public void handlerAdded(ChannelHandlerContext ctx) {
        b.configureLeg(ctx.channel());
        ctx.pipeline().remove(this);
      }
    });
    ChannelFuture f = bindSource == null ? bootstrap.connect(flow.server()) : bootstrap.connect(flow.server(), bindSource);
    b.connecting = f;
    f.addListener(done -> {
      if (done.isSuccess()) {
        b.legConnected(f.channel());
      } else {
        b.abort(Legs.connectFailureCode(done.cause()), "connect to " + flow.server() + " failed: " + done.cause().getMessage());
      }
    });
  }

  private void configureLeg(Channel ch) {
    options.legs().add(ch);
    ch.pipeline().addLast("idle", new IdleStateHandler(0, 0, tuning.idleTimeout().toNanos(), TimeUnit.NANOSECONDS));
    ch.pipeline().addLast("bridge", new LegHandler());
  }

  /** What the node holds for this flow right now (both directions). */
  long bufferedBytes() {
    return toWanBytes + toLegQueued + toLegInFlight;
  }

  private void noteBuffered() {
    flow.buffered(bufferedBytes());
  }

  private void run(Runnable r) {
    if (loop.inEventLoop()) {
      r.run();
    } else {
      try {
        loop.execute(r);
      } catch (RejectedExecutionException e) {
        Legs.reset(leg);
      }
    }
  }

  // ---- leg → WAN -----------------------------------------------------------------------------

  private void fromLeg(ByteBuf buf) {
    if (finished) {
      buf.release();
      return;
    }
    int n = buf.readableBytes();
    if (legIsClient) {
      flow.addClientToServer(n);
    } else {
      flow.addServerToClient(n);
    }
    toWan.add(buf);
    toWanBytes += n;
    noteBuffered();
    if (stream == null) {
      tryOpen();
    } else {
      drainToWan();
    }
  }

  private void tryOpen() {
    if (stream != null || finished) {
      return;
    }
    if (openTimer != null) {
      openTimer.cancel(false);
    }
    ByteBuf first = Unpooled.EMPTY_BUFFER;
    ByteBuf head = toWan.peek();
    int limit = opener.maxOpenPayload();
    if (head != null) {
      if (head.readableBytes() <= limit) {
        first = toWan.poll();
      } else {
        first = head.readRetainedSlice(limit);
      }
      toWanBytes -= first.readableBytes();
    }
    MuxStream s = opener.open(flow.id(), openSource, openDestination, first, this);
    if (s == null) {
      first.release();
      abort(WireCodes.NO_ROUTE, "WAN connection to " + opener.peerName() + " could not open a stream");
      return;
    }
    stream = s;
    drainToWan();
    stream.flush();
  }

  private void drainToWan() {
    while (!toWan.isEmpty() && stream.sendWindow() > 0 && stream.wanChannel().isWritable()) {
      ByteBuf head = toWan.peek();
      int chunk = (int) Math.min(head.readableBytes(), Math.min(stream.sendWindow(), stream.maxDataPayload()));
      ByteBuf out = chunk == head.readableBytes() ? toWan.poll() : head.readRetainedSlice(chunk);
      toWanBytes -= chunk;
      boolean end = legInputEnded && toWan.isEmpty();
      endSent |= end;
      stream.writeData(out, end);
    }
    if (toWan.isEmpty() && legInputEnded && !endSent) {
      endSent = true;
      stream.writeData(Unpooled.EMPTY_BUFFER, true);
    }
    noteBuffered();
    updateLegReading();
    maybeFinish();
  }

  private void updateLegReading() {
    if (leg == null || finished) {
      return;
    }
    boolean want;
    if (stream == null) {
      want = toWan.isEmpty() && opener != null;
    } else {
      want = !legInputEnded && toWan.isEmpty() && stream.sendWindow() > 0 && stream.wanChannel().isWritable();
    }
    if (leg.config().isAutoRead() != want) {
      leg.config().setAutoRead(want);
    }
  }

  private void legInputShutdown() {
    if (finished || legInputEnded) {
      return;
    }
    legInputEnded = true;
    if (stream == null) {
      tryOpen();
    } else {
      drainToWan();
      stream.flush();
    }
  }

  // ---- WAN → leg -----------------------------------------------------------------------------

  @Override
  public void onData(ByteBuf data, boolean endStream) {
    if (finished) {
      data.release();
      return;
    }
    if (leg == null) {
      if (data.isReadable()) {
        toLegQueue.add(data);
        toLegQueued += data.readableBytes();
        noteBuffered();
      } else {
        data.release();
      }
      remoteEnded |= endStream;
      return;
    }
    writeToLeg(data);
    if (endStream) {
      remoteEnd();
    }
  }

  private void writeToLeg(ByteBuf data) {
    int n = data.readableBytes();
    if (n == 0) {
      data.release();
      return;
    }
    if (legIsClient) {
      flow.addServerToClient(n);
    } else {
      flow.addClientToServer(n);
    }
    toLegInFlight += n;
    noteBuffered();
    leg.writeAndFlush(data).addListener(f -> run(() -> {
      toLegInFlight -= n;
      noteBuffered();
      if (f.isSuccess() && !finished) {
        stream.consumed(n);
      }
    }));
  }

  private void remoteEnd() {
    remoteEnded = true;
    Channel ch = leg;
    ch.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(f -> {
      if (f.isSuccess() && ch.isActive()) {
        ((DuplexChannel) ch).shutdownOutput().addListener(s -> run(() -> {
          legOutputShut = true;
          maybeFinish();
        }));
      }
    });
  }

  private void legConnected(Channel ch) {
    if (finished) {
      Legs.reset(ch);
      return;
    }
    leg = ch;
    flow.localLeg(tuning.apply(ch));
    flow.state(FlowState.OPEN);
    while (!toLegQueue.isEmpty()) {
      ByteBuf b = toLegQueue.poll();
      toLegQueued -= b.readableBytes();
      writeToLeg(b);
    }
    if (remoteEnded) {
      remoteEnd();
    }
    updateLegReading();
  }

  @Override
  public void onWindowUpdate() {
    if (!finished) {
      drainToWan();
      stream.flush();
    }
  }

  @Override
  public void onWanWritabilityChanged() {
    if (!finished && stream != null) {
      drainToWan();
    }
  }

  @Override
  public void onReset(int code, String reason) {
    if (finished) {
      return;
    }
    stream = null;
    abort(0, (legIsClient ? "server side reset: " : "client side reset: ") + reason);
  }

  // ---- endings -------------------------------------------------------------------------------

  private void maybeFinish() {
    if (!finished && endSent && remoteEnded && legOutputShut && legInputEnded) {
      finished = true;
      leg.close();
      flow.close("completed");
    }
  }

  /** Ends the flow abnormally: resets the stream (unless {@code code} is 0) and the leg. */
  private void abort(int code, String reason) {
    if (finished) {
      return;
    }
    finished = true;
    if (openTimer != null) {
      openTimer.cancel(false);
    }
    releaseAll(toWan);
    releaseAll(toLegQueue);
    toWanBytes = 0;
    toLegQueued = 0;
    if (stream != null && code != 0) {
      stream.reset(code, reason);
    }
    if (leg != null) {
      Legs.reset(leg);
    } else if (connecting != null) {
      connecting.cancel(false);
      connecting.channel().close();
    }
    flow.close(reason);
    log.debug("flow {} aborted: {}", flow.id(), reason);
  }

  private static void releaseAll(ArrayDeque<ByteBuf> q) {
    ByteBuf b;
    while ((b = q.poll()) != null) {
      b.release();
    }
  }

  /** The leg's end of the bridge: forwards its events to the bridge's loop. */
  private final class LegHandler extends ChannelInboundHandlerAdapter {
    private final String side = legIsClient ? "client" : "server";

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (!(msg instanceof ByteBuf)) {
        ReferenceCountUtil.release(msg);
        return;
      }
      ByteBuf buf = (ByteBuf) msg;
      if (loop.inEventLoop()) {
        fromLeg(buf);
      } else {
        try {
          loop.execute(() -> fromLeg(buf));
        } catch (RejectedExecutionException e) {
          buf.release();
          Legs.reset(ctx.channel());
        }
      }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
      run(() -> {
        if (stream != null) {
          stream.flush();
        }
      });
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
      if (evt instanceof ChannelInputShutdownEvent) {
        run(StreamBridge.this::legInputShutdown);
      } else if (evt instanceof IdleStateEvent) {
        run(() -> abort(WireCodes.IDLE_TIMEOUT, "idle timeout: no bytes on the " + side + " leg for " + tuning.idleTimeout()));
      }
      ReferenceCountUtil.release(evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      run(() -> abort(WireCodes.CONNECTION_RESET, side + " leg failed: " + cause.getMessage()));
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      run(() -> {
        if (legInputEnded && legOutputShut) {
          return; // both directions finished at the socket; what was read still drains to the WAN
        }
        abort(WireCodes.CONNECTION_RESET, side + " leg closed before the flow completed");
      });
    }
  }
}
