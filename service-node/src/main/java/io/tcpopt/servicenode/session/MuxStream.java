package io.tcpopt.servicenode.session;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import io.tcpopt.servicenode.wire.DataFrame;
import io.tcpopt.servicenode.wire.RstStreamFrame;
import io.tcpopt.servicenode.wire.WindowUpdateFrame;
import io.tcpopt.servicenode.wire.WireCodes;

/**
 * One flow carried over a WAN connection, with its credit both ways. The sender may have at most
 * {@link #sendWindow()} bytes unacknowledged; received bytes are granted back (WINDOW_UPDATE) only
 * once written to the local TCP leg ({@link #consumed}), batched at a quarter window. The receive
 * window starts small and grows with the flow ({@link ReceiveWindow}), or at once by the start
 * credit the node can spare ({@link #grantStartCredit}); what it grows by, and what the send queue
 * may hold once it fills within the peer's window, is reserved from the stream's {@link
 * StreamBudget} first. Credit the peer granted beyond its initial window and this side leaves
 * unused for an idle second is given back (flag RETURN), and so is its reservation.
 *
 * <p>Lifecycle: the END_STREAM in each direction is not the end of the stream. The receiver keeps
 * granting after it and grants the last bytes as soon as all are written to its leg: that grant is
 * the delivery acknowledgement, which completes the sender's end ({@link
 * StreamHandler#onEndDelivered}). The stream stays known to its connection until both directions
 * are delivered, so a leg write that fails after both ENDs still resets the peer's leg
 * (RST_STREAM), and a lost connection still resets the legs of undelivered streams.
 *
 * <p>Bytes written to the stream wait in its own send queue (at most {@link #SEND_QUEUE_LIMIT})
 * until the connection's {@link StreamScheduler} picks them, so queues stay where the fair
 * scheduler sees them and the socket's own queue stays shallow. All methods
 * run on the connection's event loop. Outside this package a stream is an opaque token handed to
 * a {@link StreamAcceptor}: the data path sees it only through {@link WanStreamUpstream}.
 */
public final class MuxStream {
  /** Bytes a stream may hold waiting for the scheduler; its credit is 0 beyond. */
  public static final int SEND_QUEUE_LIMIT = 256 * 1024;
  /**
   * How long a sender leaves credit beyond the peer's initial window unused before it gives it back
   * (flag RETURN): at least this, and at least {@value #RETURN_IDLE_RTTS} round trips, but never
   * more than {@link #RETURN_IDLE_MAX_MILLIS}.
   */
  static final long RETURN_IDLE_MILLIS = 1_000;
  static final int RETURN_IDLE_RTTS = 4;
  /**
   * The longest a sender waits to give unused credit back, whatever the connection's last PING
   * measured: a PING queued behind bulk data or a stalled peer can measure seconds, and the credit
   * held meanwhile is budget the receiver cannot lend to new flows.
   */
  static final long RETURN_IDLE_MAX_MILLIS = 5_000;

  private final StreamMultiplexer mux;
  private final int id;
  private StreamHandler handler;
  private long sendWindow;
  /** The peer's window for this stream: its initial window plus every GROW it granted. */
  private long peerWindow;
  /**
   * What the send queue may hold: reserved from the budget; when it fills, it grows to what the
   * peer's window allows, up to {@link #SEND_QUEUE_LIMIT}.
   */
  private long sendQueueLimit;
  private final ReceiveWindow receive;
  /** Puts received DATA back in stream order (wire format 2). */
  private final StreamReassembly reassembly;
  /** The stream offset of the next byte this side sends (its OPEN's first bytes came before). */
  private long sendOffset;
  /** The stream offset after the last byte written to the stream (queued or sent), in credit units. */
  private long writtenOffset;
  /**
   * The peer knows the stream (it opened it, or answered its OPEN): its DATA may travel on other
   * connections of the group without arriving before the OPEN.
   */
  private boolean knownToPeer;
  /** Other connections of the group this stream sent DATA on, each with the end offset of the last one. */
  private java.util.Map<StreamMultiplexer, Long> sentAway;
  private StreamBudget budget = StreamBudget.UNLIMITED;
  private boolean sentEnd;
  private boolean receivedEnd;
  /** The peer acknowledged every byte sent before this side's END_STREAM, and the handler was told. */
  private boolean endDelivered;
  private boolean removed;

  /** Written, not yet handed to the connection (within the send window already). */
  private ArrayDeque<ByteBuf> pending;
  private long pendingBytes;
  /** The end was written and waits behind {@link #pending}. */
  private boolean endPending;
  /** The queue was full: the handler waits for room. */
  private boolean full;
  /** Every queued buffer is a data-reduction segment ({@link #encodeSegments}). */
  private boolean encoded;
  /** The peer gave back all the credit beyond the initial window: this side's next write grants start credit again. */
  private boolean creditReturned;
  /** When this side last wrote to the stream, and the check that gives back credit it left unused. */
  private long lastWriteNanos;
  private ScheduledFuture<?> returnCheck;
  /** What the stream may still send on its pool's express connection; made when it first might (most nodes have none). */
  private InteractiveAllowance interactive;
  /**
   * Scheduler state: whether the stream is in one of its lists, its deficit, its place in the
   * order of arrival (0 before its first turn) and the bytes it has sent (attained service).
   */
  boolean scheduled;
  int deficit;
  long arrival;
  long attained;

  /**
   * A stream whose first {@code sentOffset} bytes this side sent in its OPEN, and the first {@code
   * receivedOffset} bytes of which the peer sent in its OPEN.
   */
  MuxStream(StreamMultiplexer mux, int id, long sendWindow, int receiveCredit, long sentOffset, long receivedOffset) {
    this.mux = mux;
    this.id = id;
    this.sendWindow = sendWindow;
    this.sendOffset = sentOffset;
    this.writtenOffset = sentOffset;
    this.reassembly = new StreamReassembly(receivedOffset);
    this.peerWindow = mux.peerInitialWindow();
    this.sendQueueLimit = sendQueueBound(peerWindow);
    this.receive = new ReceiveWindow(mux.localWindow(), mux.maxLocalWindow(), receiveCredit, mux.channel().eventLoop().ticker());
  }

  /** What the send queue of a stream may hold while the peer's window is {@code peerWindow}. */
  static long sendQueueBound(long peerWindow) {
    return Math.min(SEND_QUEUE_LIMIT, peerWindow);
  }

  /** Where the stream reserves what its windows grow by (the flow's admission claim). */
  void budget(StreamBudget budget) {
    this.budget = budget;
  }

  /** The current receive window (what the peer may have unacknowledged). */
  int receiveWindow() {
    return receive.size();
  }

  int id() {
    return id;
  }

  void handler(StreamHandler handler) {
    this.handler = handler;
  }

  EventLoop eventLoop() {
    return mux.channel().eventLoop();
  }

  Channel wanChannel() {
    return mux.channel();
  }

  StreamMultiplexer connection() {
    return mux;
  }

  /** Bytes that may still be sent before the peer grants more. */
  long sendWindow() {
    return removed ? 0 : sendWindow;
  }

  /** Bytes that may be written now: the send window, bounded by the room in the send queue. */
  long sendCredit() {
    return removed || sentEnd ? 0 : Math.max(0, Math.min(sendWindow, sendQueueLimit - pendingBytes));
  }

  /**
   * Queues bytes for the scheduler (at most {@link #sendCredit()}); takes ownership. With {@code
   * endStream} the end follows them. Nothing leaves before {@link #flush}.
   */
  void writeData(ByteBuf data, boolean endStream) {
    if (removed || sentEnd) {
      data.release();
      return;
    }
    int n = data.readableBytes();
    sendWindow -= n;
    writtenOffset += n;
    sentEnd = endStream;
    lastWriteNanos = eventLoop().ticker().nanoTime();
    if (creditReturned && n > 0) {
      creditReturned = false;
      grantStartCredit(); // a request after an idle time: its response gets the start credit a new stream would
    }
    if (n > 0) {
      if (pending == null) {
        pending = new ArrayDeque<>(4);
      }
      pending.add(data);
      pendingBytes += n;
      growSendQueueIfFull();
      full = pendingBytes >= sendQueueLimit || full;
    } else {
      data.release();
    }
    endPending |= endStream;
    mux.schedule(this);
  }

  boolean hasPending() {
    return pendingBytes > 0 || endPending;
  }

  /** The next frame of this stream's queue, at most {@code limit} bytes; only while {@link #hasPending()}. */
  DataFrame pollFrame(int limit) {
    ByteBuf out;
    ByteBuf head = pending == null ? null : pending.peek();
    if (head == null) {
      out = Unpooled.EMPTY_BUFFER;
    } else if (head.readableBytes() <= limit || encoded) {
      out = pending.poll();
    } else {
      out = head.readRetainedSlice(limit);
    }
    pendingBytes -= out.readableBytes();
    boolean end = endPending && pendingBytes == 0;
    if (end) {
      endPending = false;
      if (allSentAcknowledged()) {
        // Nothing waits for an acknowledgement: told after the scheduler's round, not inside it.
        eventLoop().execute(this::endDeliveredIfAcknowledged);
      }
    }
    DataFrame frame = new DataFrame(id, sendOffset, out, end, encoded && out.isReadable());
    sendOffset += frame.creditLength();
    return frame;
  }

  /**
   * The next frame of this stream's queue when all it has waiting is at most {@code limit} bytes,
   * the peer knows the stream, no end waits and its {@link InteractiveAllowance} allows them at
   * {@code nowNanos}: an interactive frame, for the express connection. Else null.
   */
  DataFrame pollInteractiveFrame(int limit, long nowNanos) {
    if (pendingBytes == 0 || pendingBytes > limit || endPending || !mayTravelAway()) {
      return null;
    }
    if (interactive == null) {
      interactive = new InteractiveAllowance();
    }
    if (!interactive.allows(pendingBytes, nowNanos)) {
      return null;
    }
    DataFrame frame = pollFrame(limit);
    interactive.spend(frame.content().readableBytes());
    return frame;
  }

  /**
   * The queue is full while the peer's window has room for more: it may grow to its bound for that
   * window ({@link #sendQueueBound}), reserved from the budget first. Reserved as the queue fills,
   * not as the peer's window grows, so a stream that sends little holds no more than at its start.
   */
  private void growSendQueueIfFull() {
    if (pendingBytes < sendQueueLimit || sendWindow <= 0) {
      return;
    }
    long bound = sendQueueBound(peerWindow);
    if (bound > sendQueueLimit && budget.reserve(bound - sendQueueLimit)) {
      sendQueueLimit = bound;
    }
  }

  /** True once, when the queue was full and has drained to half: the handler may write again. */
  boolean sendRoomAgain() {
    if (full && pendingBytes <= sendQueueLimit / 2) {
      full = false;
      return !removed;
    }
    return false;
  }

  /** Releases whatever waits to be sent (reset, or the connection is gone). */
  void dropPending() {
    if (pending != null) {
      ByteBuf b;
      while ((b = pending.poll()) != null) {
        b.release();
      }
    }
    pendingBytes = 0;
    endPending = false;
  }

  /**
   * From now on every queued buffer is one data-reduction segment: sent whole as one ENCODED DATA
   * frame (segments are at most {@link #maxSegmentPayload()}), never cut.
   */
  void encodeSegments() {
    encoded = true;
  }

  /** Largest segment the stream sends whole: the peer's frame size less the DATA's fields, within the scheduler's quantum. */
  int maxSegmentPayload() {
    return Math.min(mux.peerMaxFrameSize() - DataFrame.OFFSET_LENGTH - DataFrame.HOME_LENGTH, StreamScheduler.QUANTUM);
  }

  /**
   * Queues one segment that decodes to {@code decodedLength} bytes, counted against the send window
   * by that length (the peer grants credit for decoded bytes); takes ownership.
   */
  void writeEncoded(ByteBuf segment, int decodedLength) {
    if (removed || sentEnd) {
      segment.release();
      return;
    }
    sendWindow -= decodedLength;
    writtenOffset += decodedLength;
    lastWriteNanos = eventLoop().ticker().nanoTime();
    if (creditReturned) {
      creditReturned = false;
      grantStartCredit();
    }
    if (pending == null) {
      pending = new ArrayDeque<>(4);
    }
    pending.add(segment);
    pendingBytes += segment.readableBytes();
    growSendQueueIfFull();
    full = pendingBytes >= sendQueueLimit || full;
    mux.schedule(this);
  }

  void flush() {
    mux.flush();
  }

  /** The peer opened the stream: it knows it. */
  void knownToPeer() {
    knownToPeer = true;
  }

  /** Whether the stream's DATA may travel on another connection than its own. */
  boolean mayTravelAway() {
    return knownToPeer && !removed;
  }

  /** A DATA of the stream ending at offset {@code end} leaves on {@code via}, another connection of the group. */
  void sentOn(StreamMultiplexer via, long end) {
    if (sentAway == null) {
      sentAway = new java.util.HashMap<>(4);
    }
    sentAway.put(via, end);
  }

  /**
   * The offset below which the peer acknowledged every byte (wrote it to its leg): acknowledgements
   * come in stream order, so it is every byte written less those the peer's window still counts.
   */
  long acknowledgedOffset() {
    return writtenOffset - (peerWindow - sendWindow);
  }

  /** Whether the stream sent bytes on {@code lost} that the peer has not acknowledged; forgets {@code lost}. */
  boolean unacknowledgedOn(StreamMultiplexer lost) {
    Long end = sentAway == null ? null : sentAway.remove(lost);
    return end != null && end > acknowledgedOffset();
  }

  /** Bytes of the stream may be lost with another connection: the stream is reset, here and at the peer. */
  void lostBytesWith(String reason) {
    if (removed) {
      return;
    }
    reset(WireCodes.INTERNAL, reason);
    handler.onReset(WireCodes.INTERNAL, reason);
  }

  /**
   * {@code bytes} received on this stream were written to the local leg: grant them back, batched,
   * except after the peer's END_STREAM once everything received is written (the delivery
   * acknowledgement). A grant may come with the window's growth (a second WINDOW_UPDATE, flag
   * GROW), never after the peer's END_STREAM.
   */
  void consumed(int bytes) {
    if (removed) {
      return;
    }
    receive.written(bytes);
    if (receive.grantDue() || (receivedEnd && receive.unacknowledged() > 0 && receive.allWritten())) {
      mux.write(new WindowUpdateFrame(id, receive.takeGrant()));
      int growth = receivedEnd ? 0 : receive.growth(mux.rttNanos());
      if (growth > 0 && budget.reserve(growth)) {
        receive.grow(growth);
        mux.write(new WindowUpdateFrame(id, growth, true));
      }
      mux.flush();
    }
    removeIfDone();
  }

  /**
   * Grants the peer credit beyond the initial window at once, as large as the stream's budget allows
   * now ({@link StreamBudget#startCredit}, reserved first): the GROW follows the OPEN (or answers it),
   * so the first response runs at full speed instead of waiting for the window's growth. Written,
   * not flushed.
   */
  void grantStartCredit() {
    if (removed || receivedEnd) {
      return;
    }
    long n = Math.min(Integer.MAX_VALUE, budget.startCredit(receive.room()));
    if (n > 0 && budget.reserveStart(n)) {
      receive.grow((int) n);
      mux.write(new WindowUpdateFrame(id, (int) n, true));
    }
  }

  /** Credit this side was granted beyond the peer's initial window and has not used. */
  private long returnable() {
    return removed ? 0 : Math.max(0, Math.min(sendWindow, peerWindow - mux.peerInitialWindow()));
  }

  /** After a while without writes, gives the peer back the credit this side left unused beyond its initial window. */
  private void armReturn() {
    if (returnCheck == null && !removed && returnable() > 0) {
      returnCheck = eventLoop().schedule(this::returnIfIdle, returnIdleNanos(), TimeUnit.NANOSECONDS);
    }
  }

  private void cancelReturn() {
    if (returnCheck != null) {
      returnCheck.cancel(false);
      returnCheck = null;
    }
  }

  private long returnIdleNanos() {
    return returnIdleNanos(mux.rttNanos());
  }

  /** How long a stream stays idle before it gives unused credit back, for a round trip of {@code rttNanos} (negative: none measured). */
  static long returnIdleNanos(long rttNanos) {
    long byRoundTrips = RETURN_IDLE_RTTS * Math.max(0, rttNanos);
    return Math.max(TimeUnit.MILLISECONDS.toNanos(RETURN_IDLE_MILLIS), Math.min(TimeUnit.MILLISECONDS.toNanos(RETURN_IDLE_MAX_MILLIS), byRoundTrips));
  }

  private void returnIfIdle() {
    returnCheck = null;
    if (removed) {
      return;
    }
    long idle = eventLoop().ticker().nanoTime() - lastWriteNanos;
    long wait = returnIdleNanos() - idle;
    if (wait > 0 || pendingBytes > 0) {
      returnCheck = eventLoop().schedule(this::returnIfIdle, Math.max(wait, TimeUnit.MILLISECONDS.toNanos(RETURN_IDLE_MILLIS)), TimeUnit.NANOSECONDS);
      return;
    }
    int n = (int) Math.min(Integer.MAX_VALUE, returnable());
    if (n <= 0) {
      return;
    }
    sendWindow -= n;
    peerWindow -= n;
    long bound = Math.max(sendQueueBound(peerWindow), pendingBytes);
    if (bound < sendQueueLimit) {
      budget.release(sendQueueLimit - bound);
      sendQueueLimit = bound;
    }
    mux.write(WindowUpdateFrame.giveBack(id, n));
    mux.flush();
  }

  /** Every byte sent so far was written to the peer's leg: its grants brought the window back. */
  private boolean allSentAcknowledged() {
    return sendWindow == peerWindow;
  }

  /** Tells the handler, once, that everything before this side's END_STREAM reached the peer's leg. */
  private void endDeliveredIfAcknowledged() {
    if (!removed && !endDelivered && sentEnd && !endPending && allSentAcknowledged()) {
      endDelivered = true;
      handler.onEndDelivered();
      removeIfDone();
    }
  }

  /** Aborts the stream: the peer resets its leg. */
  void reset(int code, String reason) {
    if (removed) {
      return;
    }
    removed = true;
    cancelReturn();
    dropPending();
    reassembly.clear();
    mux.remove(this);
    mux.write(new RstStreamFrame(id, code, reason));
    mux.flush();
  }

  /**
   * DATA from the peer, in any order: within credit by its length and by its offset (the credit
   * granted in total bounds the offsets it may reach), then put back in stream order ({@link
   * StreamReassembly}) and handed to the handler in order.
   */
  void onData(DataFrame frame) {
    knownToPeer = true;
    long n = frame.creditLength();
    long limit = reassembly.next() + reassembly.heldLength() + receive.credit(); // every byte granted so far
    if (!receive.receive(n)) {
      frame.release();
      mux.connectionError(WireCodes.GOAWAY_FLOW_CONTROL, "stream " + id + " sent " + n + " bytes beyond its window (" + receive.credit() + " left)");
      return;
    }
    if (frame.offset() > limit - n) {
      frame.release();
      mux.connectionError(WireCodes.GOAWAY_FLOW_CONTROL, "stream " + id + " sent DATA at offset " + frame.offset() + " of " + n
          + " bytes, beyond the " + limit + " granted");
      return;
    }
    switch (reassembly.offer(frame, this::deliver)) {
      case OVERLAP:
        frame.release();
        mux.connectionError(WireCodes.GOAWAY_PROTOCOL_ERROR, "stream " + id + " sent DATA at offset " + frame.offset() + " of " + n
            + " bytes, over bytes already received");
        break;
      case BEYOND_END:
        frame.release();
        reset(WireCodes.PROTOCOL_ERROR, "DATA after END_STREAM");
        handler.onReset(WireCodes.PROTOCOL_ERROR, "peer sent DATA after END_STREAM");
        break;
      default:
        break;
    }
  }

  /** The next DATA in stream order: to the handler, unless the stream ended meanwhile. */
  private void deliver(DataFrame frame) {
    if (removed) {
      frame.release();
      return;
    }
    receivedEnd = frame.endStream();
    handler.onData(frame.content(), frame.endStream(), frame.encoded());
    if (receivedEnd) {
      consumed(0); // an END_STREAM after bytes already written acknowledges them at once
    }
  }

  /** Credit from the peer: an acknowledgement of bytes it wrote to its leg, or ({@code grow}) its window's growth. */
  void onWindowUpdate(int increment, boolean grow) {
    onWindowUpdate(increment, grow, false);
  }

  /**
   * A WINDOW_UPDATE from the peer: credit (see {@link #onWindowUpdate(int, boolean)}), or ({@code
   * giveBack}, flag RETURN) credit this side granted that the peer gives back unused: the receive
   * window shrinks and its reservation is released.
   */
  void onWindowUpdate(int increment, boolean grow, boolean giveBack) {
    if (giveBack) {
      if (!receive.giveBack(increment)) {
        mux.connectionError(WireCodes.GOAWAY_FLOW_CONTROL, "stream " + id + " returned " + increment + " bytes of credit, beyond the "
            + receive.credit() + " it has left or below the initial window (window " + receive.size() + ")");
        return;
      }
      budget.release(increment);
      creditReturned = receive.size() == mux.localWindow();
      if (receive.grantDue()) {
        // Bytes written below a quarter of the old window may be a quarter of the new one: granted now,
        // or a sender that gave back all its credit would wait for them forever.
        mux.write(new WindowUpdateFrame(id, receive.takeGrant()));
        mux.flush();
      }
      removeIfDone();
      return;
    }
    knownToPeer = true;
    sendWindow += increment;
    if (sendWindow > Integer.MAX_VALUE) {
      mux.connectionError(WireCodes.GOAWAY_FLOW_CONTROL, "stream " + id + " window above 2^31-1");
      return;
    }
    if (grow) {
      peerWindow += increment;
    }
    armReturn();
    handler.onWindowUpdate(grow ? 0 : increment); // data reduction counts acknowledged bytes only
    endDeliveredIfAcknowledged();
  }

  void onReset(int code, String reason) {
    removed = true;
    cancelReturn();
    dropPending();
    reassembly.clear();
    mux.remove(this);
    handler.onReset(code, reason);
  }

  /**
   * The WAN connection is gone. The leg is reset unless both directions are safe: everything this
   * side sent was delivered, and the peer's END_STREAM arrived (all its bytes are here and the
   * bridge finishes writing them).
   */
  void onConnectionLost(String reason) {
    removed = true;
    cancelReturn();
    dropPending();
    reassembly.clear();
    if (endDelivered && receivedEnd) {
      return;
    }
    handler.onReset(WireCodes.INTERNAL, reason);
  }

  /** The send queue has room again. */
  void onSendRoom() {
    handler.onSendRoom();
  }

  /**
   * Done once both directions are delivered: this side's END went out and the peer acknowledged
   * every byte before it, and the peer's END arrived and every byte before it was written and granted.
   */
  private void removeIfDone() {
    if (endDelivered && receivedEnd && receive.unacknowledged() == 0 && receive.allWritten() && !removed) {
      removed = true;
      cancelReturn();
      mux.remove(this);
    }
  }
}
