package io.tcpopt.common.relay;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import io.tcpopt.common.transport.ResetCause;
import java.time.Duration;
import java.util.ArrayDeque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Joins two {@link Upstream}s directly, where neither end is a TCP leg of this node: at the far
 * node, the peer's WAN stream to an upstream that is not one socket — the HTTP reuse upstream,
 * which sends the flow's requests on pooled server connections. It does for two upstreams what
 * {@link LegBridge} does for a leg and an upstream: bytes each way within the receiving side's
 * credit (acknowledged to the sender with {@link Upstream#consumed} once the receiver took them,
 * so each side's window bounds what waits here), FIN each way after the bytes before it, a reset
 * of either side resets the other, and an idle timeout.
 *
 * <p>Both upstreams must live on one event loop; all state is confined to it. {@code flow} sees
 * the {@code server} side as the leg: bytes from it are {@code fromLeg}, bytes to it {@code toLeg}.
 */
public final class UpstreamSplice {
  private static final Logger log = LoggerFactory.getLogger(UpstreamSplice.class);

  private final EventLoop loop;
  private final FlowRecorder flow;
  private final Duration idleTimeout;
  private final Side stream;
  private final Side server;
  private IdleTimer idle;
  private boolean finished;

  private UpstreamSplice(Upstream stream, Upstream server, FlowRecorder flow, Duration idleTimeout) {
    if (stream.eventLoop() != server.eventLoop()) {
      throw new IllegalArgumentException("spliced upstreams must share an event loop");
    }
    this.loop = stream.eventLoop();
    this.flow = flow;
    this.idleTimeout = idleTimeout;
    this.stream = new Side(stream, "stream");
    this.server = new Side(server, "server side");
    this.stream.other = this.server;
    this.server.other = this.stream;
  }

  /**
   * Starts both upstreams ({@code server} first, so it can take what {@code stream} delivers at
   * once) on their loop; when called there, before this returns.
   *
   * @param idleTimeout both are reset after no bytes either way for this long; zero for never
   */
  public static void start(Upstream stream, Upstream server, FlowRecorder flow, Duration idleTimeout) {
    UpstreamSplice s = new UpstreamSplice(stream, server, flow, idleTimeout);
    if (s.loop.inEventLoop()) {
      s.begin();
    } else {
      s.loop.execute(s::begin);
    }
  }

  private void begin() {
    server.upstream.start(server);
    if (!finished) {
      stream.upstream.start(stream);
    }
    if (!finished) {
      flow.open();
      idle = IdleTimer.start(loop, idleTimeout, () -> abort(ResetCause.IDLE_TIMEOUT, "idle timeout: no bytes on the flow for " + idleTimeout));
    }
  }

  private void noteBuffered() {
    if (!finished) {
      flow.buffered(stream.queued + server.queued);
    }
  }

  /** One upstream and what it delivered that waits for the other's credit. */
  private final class Side implements UpstreamListener {
    final Upstream upstream;
    final String name;
    Side other;
    /** Bytes from this upstream waiting for the other's credit. */
    final ArrayDeque<ByteBuf> waiting = new ArrayDeque<>(4);
    long queued;
    boolean ended;
    boolean endSent;
    boolean endDone;

    Side(Upstream upstream, String name) {
      this.upstream = upstream;
      this.name = name;
    }

    @Override
    public void onData(ByteBuf data) {
      if (finished) {
        data.release();
        return;
      }
      int n = data.readableBytes();
      if (idle != null) {
        idle.touch();
      }
      if (this == server) {
        flow.fromLeg(n);
      } else {
        flow.toLeg(n);
      }
      waiting.add(data);
      queued += n;
      forward();
    }

    /** Hands waiting bytes to the other upstream within its credit, then its end. */
    void forward() {
      boolean wrote = false;
      while (!finished && !waiting.isEmpty()) {
        long credit = other.upstream.credit();
        if (credit <= 0) {
          break;
        }
        ByteBuf head = waiting.peek();
        ByteBuf out = head.readableBytes() <= credit ? waiting.poll() : head.readRetainedSlice((int) credit);
        int n = out.readableBytes();
        queued -= n;
        other.upstream.write(out);
        wrote = true;
        if (!finished) {
          upstream.consumed(n);
        }
      }
      if (wrote && !finished) {
        // Flushed here, not only at onDataComplete: bytes forwarded on new credit have no read
        // behind them that would flush them, and unflushed bytes keep that credit at 0.
        other.upstream.flush();
      }
      if (!finished && ended && waiting.isEmpty() && !endSent) {
        endSent = true;
        other.upstream.flush();
        Future<Void> end = other.upstream.end();
        end.addListener(f -> {
          if (f.isSuccess()) {
            endDone = true;
            maybeFinish();
          } else {
            abort(ResetCause.CONNECTION_RESET, other.name + " lost bytes before its end: " + f.cause().getMessage());
          }
        });
      }
      noteBuffered();
    }

    @Override
    public void onDataComplete() {
      if (!finished) {
        other.upstream.flush();
      }
    }

    @Override
    public void onEnd() {
      if (finished || ended) {
        return;
      }
      ended = true;
      forward();
    }

    @Override
    public void onCredit() {
      if (!finished) {
        other.forward(); // this upstream can take more of what the other one delivered
      }
    }

    @Override
    public void onReset(ResetCause cause, String reason) {
      abort(cause, reason, this);
    }
  }

  private void maybeFinish() {
    if (!finished && stream.endDone && server.endDone) {
      finished = true;
      cancelIdle();
      flow.closed("completed");
    }
  }

  private void abort(ResetCause cause, String reason) {
    abort(cause, reason, null);
  }

  /** Resets both sides (but the one that failed on its own) and ends the flow with {@code reason}. */
  private void abort(ResetCause cause, String reason, Side failed) {
    if (finished) {
      return;
    }
    finished = true;
    cancelIdle();
    for (Side s : new Side[] {stream, server}) {
      ByteBuf b;
      while ((b = s.waiting.poll()) != null) {
        b.release();
      }
      s.queued = 0;
      if (s != failed) {
        s.upstream.reset(cause, reason);
      }
    }
    flow.closed(reason);
    log.debug("spliced flow reset ({}): {}", cause, reason);
  }

  private void cancelIdle() {
    if (idle != null) {
      idle.stop();
    }
  }
}
