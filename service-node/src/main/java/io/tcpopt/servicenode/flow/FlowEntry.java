package io.tcpopt.servicenode.flow;

import io.tcpopt.common.relay.FlowRecorder;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The live, mutable record of one flow. Updated from event loops (counters are atomic because a
 * flow's two legs may sit on two loops), read by snapshots from any thread. A bridge writes to it
 * through {@link #recorder}, which maps the bridge's leg/upstream directions to client/server.
 */
public final class FlowEntry {
  /** WAN figures of the carrying connection: rtt µs, cwnd segments, retransmits. */
  public record WanFigures(long rttMicros, long cwndSegments, long retransmits) {
    public static final WanFigures NONE = new WanFigures(-1, -1, -1);
  }

  private final FlowTable table;
  final long id;
  final InetSocketAddress client;
  final InetSocketAddress server;
  final Instant start = Instant.now();
  private final AtomicLong clientToServer = new AtomicLong();
  private final AtomicLong serverToClient = new AtomicLong();
  private final AtomicLong buffered = new AtomicLong();
  private final AtomicLong peakBuffered = new AtomicLong();
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile FlowKind kind;
  private volatile String reason;
  private volatile String peer;
  private volatile FlowState state = FlowState.CONNECTING;
  private volatile long lastActivityMillis = System.currentTimeMillis();
  private volatile Supplier<WanFigures> wan = () -> WanFigures.NONE;
  private volatile String closeReason;
  private volatile Instant end;
  private volatile WanFigures finalFigures = WanFigures.NONE;
  private volatile LegSettings localLeg;
  private volatile Supplier<HttpReuseFigures> httpReuse;
  private volatile Supplier<TlsFigures> tls;
  private volatile HttpReuseFigures finalHttpReuse;
  private volatile TlsFigures finalTls;
  private volatile LongSupplier wanSent;
  private volatile LongSupplier wanReceived;
  private volatile Supplier<String> dataReduction;
  private volatile Runnable onClose;

  FlowEntry(FlowTable table, long id, FlowKind kind, String reason, InetSocketAddress client, InetSocketAddress server) {
    this.table = table;
    this.id = id;
    this.kind = kind;
    this.reason = reason;
    this.client = client;
    this.server = server;
  }

  public long id() {
    return id;
  }

  public InetSocketAddress client() {
    return client;
  }

  public InetSocketAddress server() {
    return server;
  }

  /** Marks the flow as carried over a session by {@code peer}, with the connection's figures. */
  public void carriedBy(String peer, Supplier<WanFigures> wan) {
    this.peer = peer;
    this.wan = wan;
  }

  public void state(FlowState state) {
    this.state = state;
  }

  public void addClientToServer(long n) {
    clientToServer.addAndGet(n);
    lastActivityMillis = System.currentTimeMillis();
    table.countBytes(true, n);
  }

  public void addServerToClient(long n) {
    serverToClient.addAndGet(n);
    lastActivityMillis = System.currentTimeMillis();
    table.countBytes(false, n);
  }

  /** The bytes the node currently holds for this flow (both directions). */
  public void buffered(long bytes) {
    buffered.set(bytes);
    peakBuffered.accumulateAndGet(bytes, Math::max);
  }

  public long peakBufferedBytes() {
    return peakBuffered.get();
  }

  public boolean isClosed() {
    return closed.get();
  }

  /** Records the options read back from this node's local leg. */
  public void localLeg(LegSettings settings) {
    this.localLeg = settings;
  }

  /** The flow's requests ride pooled server connections (an http-reuse profile); figures from {@code figures}. */
  public void httpReuse(Supplier<HttpReuseFigures> figures) {
    this.httpReuse = figures;
  }

  /** The flow's client leg is TLS this node terminates (a client-ssl profile); figures from {@code figures}. */
  public void tls(Supplier<TlsFigures> figures) {
    this.tls = figures;
  }

  /**
   * The payload bytes the flow's stream sent and received over the WAN (after data reduction, if
   * any: {@code dataReduction} names it, null when off), for the LAN/WAN comparison.
   */
  public void wanBytes(LongSupplier sent, LongSupplier received, Supplier<String> dataReduction) {
    this.wanSent = sent;
    this.wanReceived = received;
    this.dataReduction = dataReduction;
  }

  /** Adds a note to the flow's reason, e.g. why a profile of its action could not be applied. */
  public void note(String note) {
    this.reason = reason == null || reason.isEmpty() ? note : reason + "; " + note;
  }

  /**
   * What the bridge of this flow reports to: {@code legIsClient} when its leg is the client (the
   * intercepting node), false when it is the server (the far node), which maps the bridge's
   * "from the leg" to client → server or server → client.
   */
  public FlowRecorder recorder(boolean legIsClient) {
    return new Recorder(legIsClient);
  }

  private final class Recorder implements FlowRecorder {
    private final boolean legIsClient;

    Recorder(boolean legIsClient) {
      this.legIsClient = legIsClient;
    }

    @Override
    public void fromLeg(long bytes) {
      if (legIsClient) {
        addClientToServer(bytes);
      } else {
        addServerToClient(bytes);
      }
    }

    @Override
    public void toLeg(long bytes) {
      if (legIsClient) {
        addServerToClient(bytes);
      } else {
        addClientToServer(bytes);
      }
    }

    @Override
    public void buffered(long bytes) {
      FlowEntry.this.buffered(bytes);
    }

    @Override
    public void open() {
      state(FlowState.OPEN);
    }

    @Override
    public void closed(String reason) {
      close(reason);
    }
  }

  /**
   * Runs {@code action} once when the flow closes (at once if it has closed already): how an
   * admitted flow gives its admission slots back.
   */
  public void onClose(Runnable action) {
    onClose = action;
    if (closed.get() && onClose != null) {
      Runnable a = onClose;
      onClose = null;
      a.run();
    }
  }

  /** Closes the flow once, moving it to the history with {@code why}. */
  public void close(String why) {
    if (closed.compareAndSet(false, true)) {
      finalFigures = peer == null ? WanFigures.NONE : wan.get();
      finalHttpReuse = httpReuse == null ? null : httpReuse.get();
      finalTls = tls == null ? null : tls.get();
      closeReason = why;
      end = Instant.now();
      state = FlowState.CLOSED;
      buffered.set(0);
      table.closed(this);
      Runnable a = onClose;
      onClose = null;
      if (a != null) {
        a.run();
      }
    }
  }

  FlowRecord snapshot() {
    boolean done = closed.get();
    WanFigures w = done ? finalFigures : peer == null ? WanFigures.NONE : wan.get();
    HttpReuseFigures reuse = done ? finalHttpReuse : httpReuse == null ? null : httpReuse.get();
    TlsFigures t = done ? finalTls : tls == null ? null : tls.get();
    return new FlowRecord(id, kind, reason, state, client, server, peer, start, Instant.ofEpochMilli(lastActivityMillis), end,
        clientToServer.get(), serverToClient.get(), buffered.get(), peakBuffered.get(), w.rttMicros(), w.cwndSegments(), w.retransmits(), closeReason,
        localLeg, reuse, t, wanSent == null ? -1 : wanSent.getAsLong(), wanReceived == null ? -1 : wanReceived.getAsLong(),
        dataReduction == null ? null : dataReduction.get());
  }

  String describe() {
    return "flow " + id + " " + client + " -> " + server + " (" + kind + (reason == null ? "" : ": " + reason) + ")";
  }

  String closeReason() {
    return closeReason;
  }

  long totalBytes() {
    return clientToServer.get() + serverToClient.get();
  }
}
