package io.tcpopt.servicenode.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.tcpopt.servicenode.trust.PeerAdmission;
import io.tcpopt.servicenode.wire.DataFrame;
import io.tcpopt.servicenode.wire.Frame;
import io.tcpopt.servicenode.wire.FrameCodec;
import io.tcpopt.servicenode.wire.GoAwayFrame;
import io.tcpopt.servicenode.wire.HelloFrame;
import io.tcpopt.servicenode.wire.OpenFrame;
import io.tcpopt.servicenode.wire.PingFrame;
import io.tcpopt.servicenode.wire.RstStreamFrame;
import io.tcpopt.servicenode.wire.WindowUpdateFrame;
import io.tcpopt.servicenode.wire.WireCodes;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The multiplexer (acceptor side) on EmbeddedChannel: stream rules, credit, keepalive. */
class StreamMultiplexerTest {
  private static final int WINDOW = 64 * 1024;
  private static final InetSocketAddress SRC = new InetSocketAddress("198.18.1.2", 40000);
  private static final InetSocketAddress DST = new InetSocketAddress("198.19.1.2", 80);

  private EmbeddedChannel ch;
  private EmbeddedChannel peerDecoder;
  private final List<String> events = new ArrayList<>();
  private final List<MuxStream> accepted = new ArrayList<>();
  private final List<String> sessions = new ArrayList<>();

  @BeforeEach
  void start() {
    startWith(WINDOW);
  }

  /** Starts the multiplexer with stream windows of {@link #WINDOW} that may grow to {@code maxWindow}. */
  private void startWith(int maxWindow) {
    peerDecoder = new EmbeddedChannel(new FrameCodec(1 << 20));
    // frames up to a whole window of bytes after their offset (wire format 2)
    SessionSettings settings = new SessionSettings("dc-1", "dc", WINDOW + DataFrame.OFFSET_LENGTH, WINDOW, 2, Duration.ofSeconds(5), Duration.ofSeconds(10),
        ReductionLink.NONE, 0, maxWindow);
    StreamAcceptor acceptor = (stream, open) -> {
      int first = open.content().readableBytes();
      open.release();
      accepted.add(stream);
      stream.handler(new StreamHandler() {
        @Override
        public void onData(ByteBuf data, boolean endStream) {
          events.add("data " + stream.id() + " " + data.readableBytes() + (endStream ? " end" : ""));
          data.release();
        }

        @Override
        public void onWindowUpdate() {
          events.add("window " + stream.id() + " " + stream.sendWindow());
        }

        @Override
        public void onReset(int code, String reason) {
          events.add("reset " + stream.id() + " " + WireCodes.resetName(code));
        }

        @Override
        public void onSendRoom() {}

        @Override
        public void onEndDelivered() {
          events.add("delivered " + stream.id());
        }
      });
      events.add("open " + stream.id() + " " + first);
    };
    SessionListener listener = new SessionListener() {
      @Override
      public void sessionUp(StreamMultiplexer c) {
        sessions.add("up " + c.peerHello().name());
      }

      @Override
      public void sessionDown(StreamMultiplexer c, String reason) {
        sessions.add("down");
      }
    };
    ch = new EmbeddedChannel(new FrameCodec(WINDOW + DataFrame.OFFSET_LENGTH), new StreamMultiplexer(settings, false, acceptor, listener, (identity, name, site) -> PeerAdmission.admitted(name, site)));
    Frame hello = sent().get(0);
    assertEquals("dc-1", ((HelloFrame) hello).name());
    feed(new HelloFrame(HelloFrame.VERSION, WINDOW, WINDOW, 100, 7, 0, "branch-1", "branch", 0, 0));
    assertEquals(List.of("up branch-1"), sessions);
    ch.runPendingTasks();
    assertInstanceOf(PingFrame.class, sent().get(0), "the first keepalive PING leaves at once");
  }

  @AfterEach
  void stop() {
    drainSent();
    assertFalse(ch.finishAndReleaseAll());
    assertFalse(peerDecoder.finishAndReleaseAll());
  }

  /** A fresh multiplexer whose stream windows grow up to {@code maxWindow}. */
  private void restartGrowing(int maxWindow) {
    stop();
    events.clear();
    peerOffsets.clear();
    accepted.clear();
    sessions.clear();
    startWith(maxWindow);
    ch.freezeTime(); // the growth interval is measured on the loop's clock: only advanceTimeBy moves it
  }

  private void feed(Frame... frames) {
    WireFeed.feed(ch, List.of(frames));
  }

  /**
   * Frames the multiplexer has written since the last call (decoded as the peer would), once the
   * event loop's turn is over (the multiplexer flushes at its end).
   */
  private List<Frame> sent() {
    ch.runPendingTasks();
    ByteBuf b;
    while ((b = ch.readOutbound()) != null) {
      peerDecoder.writeInbound(b);
    }
    List<Frame> out = new ArrayList<>();
    Object f;
    while ((f = peerDecoder.readInbound()) != null) {
      out.add((Frame) f);
    }
    return out;
  }

  private void drainSent() {
    for (Frame f : sent()) {
      if (f instanceof io.netty.util.ReferenceCounted) {
        ((io.netty.util.ReferenceCounted) f).release();
      }
    }
  }

  private GoAwayFrame goAway() {
    List<Frame> frames = sent();
    Frame last = frames.get(frames.size() - 1);
    assertInstanceOf(GoAwayFrame.class, last, frames.toString());
    assertFalse(ch.isOpen(), "connection closed after GOAWAY");
    return (GoAwayFrame) last;
  }

  /** The stream offset of the next byte the peer sends on each stream it opened or received (wire format 2). */
  private final java.util.Map<Integer, Long> peerOffsets = new java.util.HashMap<>();

  private OpenFrame open(int id, int firstBytes) {
    peerOffsets.put(id, (long) firstBytes);
    return new OpenFrame(id, id * 10L, SRC, DST, 0, Unpooled.wrappedBuffer(new byte[firstBytes]));
  }

  /** The peer's next DATA on stream {@code id}, at the offset its earlier ones reached. */
  private DataFrame data(int id, int n, boolean end) {
    long offset = peerOffsets.getOrDefault(id, 0L);
    peerOffsets.put(id, offset + n);
    return new DataFrame(id, offset, Unpooled.wrappedBuffer(new byte[n]), end);
  }

  @Test
  void dataForAnUnknownStreamIsAConnectionError() {
    feed(data(7, 10, false));
    GoAwayFrame g = goAway();
    assertEquals(WireCodes.GOAWAY_PROTOCOL_ERROR, g.code());
    assertTrue(g.reason().contains("unknown stream 7"), g.reason());
    assertEquals(List.of("up branch-1", "down"), sessions);
  }

  @Test
  void openIdsMustIncrease() {
    feed(open(3, 0), open(1, 0));
    assertEquals(WireCodes.GOAWAY_PROTOCOL_ERROR, goAway().code());
    assertTrue(events.contains("reset 3 INTERNAL"), "open streams are reset when the connection goes: " + events);
  }

  @Test
  void openWithOurParityIsAConnectionError() {
    feed(open(2, 0));
    assertEquals(WireCodes.GOAWAY_PROTOCOL_ERROR, goAway().code());
  }

  @Test
  void dataBeyondTheWindowIsAFlowControlError() {
    feed(open(1, 20_000), data(1, 40_000, false));
    assertTrue(ch.isOpen());
    feed(data(1, 10_000, false));
    assertEquals(WireCodes.GOAWAY_FLOW_CONTROL, goAway().code());
  }

  @Test
  void creditIsReturnedOnlyWhenConsumed() {
    feed(open(1, 0), data(1, 30_000, false));
    MuxStream s = accepted.get(0);
    assertTrue(sent().isEmpty(), "no credit before the bytes are written to the leg");
    s.consumed(10_000);
    assertTrue(sent().isEmpty(), "batched below a quarter window");
    s.consumed(20_000);
    assertEquals(List.of(new WindowUpdateFrame(1, 30_000)), sent());
    feed(data(1, WINDOW - 30_000 + 30_000, false));
    assertTrue(ch.isOpen(), "the returned credit may be used");
  }

  @Test
  void framesForARecentlyClosedStreamAreIgnored() {
    feed(open(1, 0), new RstStreamFrame(1, WireCodes.CONNECTION_RESET, "client reset"));
    assertEquals(List.of("open 1 0", "reset 1 CONNECTION_RESET"), events);
    feed(data(1, 100, false), new WindowUpdateFrame(1, 100), new RstStreamFrame(1, WireCodes.INTERNAL, ""));
    assertTrue(ch.isOpen());
    assertTrue(sent().isEmpty());
  }

  @Test
  void streamsBeyondMaxStreamsAreRefused() {
    feed(open(1, 0), open(3, 0), open(5, 0));
    assertEquals(List.of(new RstStreamFrame(5, WireCodes.REFUSED_STREAM, "max-streams 2 reached")), sent());
    assertTrue(ch.isOpen());
    assertEquals(2, accepted.size());
  }

  @Test
  void windowUpdatesReachTheStream() {
    feed(open(1, 0), new WindowUpdateFrame(1, 1000));
    assertEquals("window 1 " + (WINDOW + 1000), events.get(1));
    feed(new WindowUpdateFrame(1, Integer.MAX_VALUE));
    assertEquals(WireCodes.GOAWAY_FLOW_CONTROL, goAway().code());
  }

  @Test
  void pingIsEchoedAndUnansweredPingsKillTheConnection() {
    feed(new PingFrame(1234L, false));
    assertEquals(new PingFrame(1234L, true), sent().get(0));
    // Keepalive PINGs go unanswered; after at most 12 intervals the peer is declared dead.
    for (int i = 0; i < 14 && ch.isOpen(); i++) {
      ch.advanceTimeBy(5, TimeUnit.SECONDS);
      ch.runScheduledPendingTasks();
    }
    assertEquals(WireCodes.GOAWAY_KEEPALIVE_TIMEOUT, goAway().code());
  }

  @Test
  void aConnectionSilentForAnIntervalWithAPingUnansweredOpensNoStreamUntilItHearsAgain() {
    assertTrue(mux().canOpen());
    // The first PING left at the start; an interval later nothing has come back.
    ch.advanceTimeBy(5, TimeUnit.SECONDS);
    ch.runScheduledPendingTasks();
    assertTrue(ch.isOpen(), "one PING unanswered is not yet a dead peer");
    assertFalse(mux().canOpen(), "silent for an interval with a PING unanswered: new flows go elsewhere");
    feed(new PingFrame(99L, false));
    assertTrue(mux().canOpen(), "anything from the peer makes the connection usable again");
  }

  @Test
  void endStreamBothWaysAndDeliveryRemoveTheStream() {
    feed(open(1, 5), data(1, 0, true));
    MuxStream s = accepted.get(0);
    s.writeData(Unpooled.wrappedBuffer(new byte[3]), true);
    s.flush();
    List<Frame> out = sent();
    DataFrame d = (DataFrame) out.get(0);
    assertTrue(d.endStream());
    d.release();
    assertEquals(1, s.connection().activeStreams(), "both ENDs crossed, but neither direction is delivered yet");
    s.consumed(5);
    WindowUpdateFrame ack = (WindowUpdateFrame) sent().get(0);
    assertEquals(5, ack.increment(), "every received byte written after the END: granted at once (the delivery acknowledgement)");
    assertEquals(1, s.connection().activeStreams(), "the peer has not acknowledged the 3 bytes sent");
    feed(new WindowUpdateFrame(1, 3));
    assertTrue(events.contains("delivered 1"), events.toString());
    assertEquals(0, s.connection().activeStreams());
    feed(data(1, 1, false));
    assertTrue(ch.isOpen(), "late DATA for a finished stream is ignored");
  }

  /**
   * Everything one turn of the event loop writes leaves in one flush at the turn's end (one write
   * and, with TLS, as few records as fit): two new streams' OPENs with their first bytes, more
   * bytes and both ends. Nothing waits for the peer: the first bytes ride in the OPEN.
   */
  @Test
  void framesOfOneTurnLeaveInOneFlush() {
    drainSent();
    AtomicInteger flushes = new AtomicInteger();
    // Holds writes until a flush, as a socket does (EmbeddedChannel would run the loop's tasks on
    // every write that reaches it), and counts the flushes.
    ch.pipeline().addFirst(new ChannelOutboundHandlerAdapter() {
      private final List<Object> held = new ArrayList<>();
      private final List<ChannelPromise> promises = new ArrayList<>();

      @Override
      public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        held.add(msg);
        promises.add(promise);
      }

      @Override
      public void flush(ChannelHandlerContext ctx) {
        flushes.incrementAndGet();
        for (int i = 0; i < held.size(); i++) {
          ctx.write(held.get(i), promises.get(i));
        }
        held.clear();
        promises.clear();
        ctx.flush();
      }
    });
    StreamMultiplexer mux = ch.pipeline().get(StreamMultiplexer.class);
    StreamHandler quiet = new DiscardingStreamHandler();
    MuxStream a = mux.open(1L, SRC, DST, 0, null, Unpooled.wrappedBuffer(new byte[100]), quiet);
    MuxStream b = mux.open(2L, SRC, DST, 0, null, Unpooled.wrappedBuffer(new byte[200]), quiet);
    a.writeData(Unpooled.wrappedBuffer(new byte[50]), true);
    a.flush();
    b.writeData(Unpooled.EMPTY_BUFFER, true);
    b.flush();
    assertEquals(0, flushes.get(), "nothing is flushed before the turn ends");
    assertTrue(ch.outboundMessages().isEmpty());
    List<Frame> out = sent();
    assertEquals(1, flushes.get(), "one flush for the turn");
    assertEquals(4, out.size(), out.toString());
    OpenFrame openA = (OpenFrame) out.get(0);
    OpenFrame openB = (OpenFrame) out.get(1);
    DataFrame endA = (DataFrame) out.get(2);
    DataFrame endB = (DataFrame) out.get(3);
    assertEquals(List.of(a.id(), 100, b.id(), 200), List.of(openA.streamId(), openA.content().readableBytes(), openB.streamId(),
        openB.content().readableBytes()), "each OPEN carries its first bytes");
    assertEquals(List.of(a.id(), 50, true, b.id(), 0, true), List.of(endA.streamId(), endA.content().readableBytes(), endA.endStream(),
        endB.streamId(), endB.content().readableBytes(), endB.endStream()));
    for (Frame f : out) {
      ((io.netty.util.ReferenceCounted) f).release();
    }
  }

  @Test
  void aWindowTheLegEmptiedWithinTheIntervalGrowsFourfold() {
    restartGrowing(8 * WINDOW);
    feed(open(1, 0));
    MuxStream s = accepted.get(0);
    List<Long> reserved = new ArrayList<>();
    s.budget(bytes -> reserved.add(bytes));
    feed(data(1, WINDOW, false));
    s.consumed(WINDOW);
    assertEquals(List.of(new WindowUpdateFrame(1, WINDOW), new WindowUpdateFrame(1, 3 * WINDOW, true)), sent(),
        "the acknowledgement, then the growth with the GROW flag");
    assertEquals(List.of(3L * WINDOW), reserved, "the growth was reserved first");
    assertEquals(4 * WINDOW, s.receiveWindow());
    feed(data(1, WINDOW, false), data(1, WINDOW, false), data(1, WINDOW, false), data(1, WINDOW, false));
    assertTrue(ch.isOpen(), "the peer may fill the grown window");
    s.consumed(4 * WINDOW);
    assertEquals(List.of(new WindowUpdateFrame(1, 4 * WINDOW), new WindowUpdateFrame(1, 4 * WINDOW, true)), sent(),
        "fourfold again, cut at the maximum");
    feed(data(1, WINDOW, false), data(1, WINDOW, false));
    s.consumed(2 * WINDOW);
    assertEquals(List.of(new WindowUpdateFrame(1, 2 * WINDOW)), sent(), "at the maximum (8 windows) it grows no more");
    assertEquals(8 * WINDOW, s.receiveWindow());
  }

  /** A stream budget that records what is reserved and released and offers a fixed start credit. */
  private static final class RecordingBudget implements StreamBudget {
    final long startCredit;
    long reserved;
    long released;

    RecordingBudget(long startCredit) {
      this.startCredit = startCredit;
    }

    @Override
    public boolean reserve(long bytes) {
      reserved += bytes;
      return true;
    }

    @Override
    public void release(long bytes) {
      released += bytes;
    }

    @Override
    public long startCredit(long most) {
      return Math.min(most, startCredit);
    }
  }

  @Test
  void aNewStreamsStartCreditIsReservedAndGrantedAtOnce() {
    restartGrowing(8 * WINDOW);
    feed(open(1, 0));
    MuxStream s = accepted.get(0);
    RecordingBudget budget = new RecordingBudget(100 * WINDOW);
    s.budget(budget);
    s.grantStartCredit();
    s.flush();
    assertEquals(List.of(new WindowUpdateFrame(1, 7 * WINDOW, true)), sent(), "the start credit, cut at the maximum window, flag GROW");
    assertEquals(7L * WINDOW, budget.reserved, "reserved before it was granted");
    assertEquals(8 * WINDOW, s.receiveWindow());
    for (int i = 0; i < 8; i++) {
      feed(data(1, WINDOW, false));
    }
    assertTrue(ch.isOpen(), "the peer may send the whole start window before any acknowledgement");
    feed(data(1, 1, false));
    assertEquals(WireCodes.GOAWAY_FLOW_CONTROL, goAway().code(), "one byte beyond it is a flow-control error");
  }

  @Test
  void noBudgetNoStartCredit() {
    feed(open(1, 0));
    MuxStream s = accepted.get(0);
    s.grantStartCredit(); // StreamBudget.UNLIMITED: nothing to size a start credit from
    s.flush();
    assertEquals(List.of(), sent());
    assertEquals(WINDOW, s.receiveWindow());
  }

  /** Stream 1, opened by the peer on a growing session, its start credit granted from {@code budget} and sent. */
  private MuxStream acceptedWithStartCredit(RecordingBudget budget) {
    restartGrowing(8 * WINDOW);
    feed(open(1, 0));
    MuxStream s = accepted.get(0);
    s.budget(budget);
    s.grantStartCredit();
    s.flush();
    drainSent();
    return s;
  }

  @Test
  void aStartCreditTheLegTookAQuarterOfAtOnceGrows() {
    // issue 9, lossy9f: judged on the whole start credit, the window grew only once the leg had taken
    // all of it, ~1.1 s into a 300 ms / 1% transfer, the sender out of credit meanwhile.
    RecordingBudget budget = new RecordingBudget(3 * WINDOW);
    MuxStream s = acceptedWithStartCredit(budget); // a window of 4 x WINDOW, growing to 8 x WINDOW
    feed(data(1, WINDOW, false));
    s.consumed(WINDOW);
    assertEquals(List.of(new WindowUpdateFrame(1, WINDOW), new WindowUpdateFrame(1, 4 * WINDOW, true)), sent(),
        "a quarter of the window at once: acknowledged, and the window grows (cut at the maximum)");
    assertEquals(7L * WINDOW, budget.reserved, "the start credit and the growth, both reserved");
    assertEquals(8 * WINDOW, s.receiveWindow());
  }

  @Test
  void creditThePeerGivesBackShrinksTheWindowAndIsReleased() {
    RecordingBudget budget = new RecordingBudget(7 * WINDOW);
    MuxStream s = acceptedWithStartCredit(budget);
    feed(data(1, WINDOW, false));
    feed(WindowUpdateFrame.giveBack(1, 7 * WINDOW));
    assertTrue(ch.isOpen(), "the peer gave back the credit it left unused");
    assertEquals(WINDOW, s.receiveWindow(), "the window is back at its initial size");
    assertEquals(7L * WINDOW, budget.released, "and its reservation released");
    s.consumed(WINDOW);
    assertEquals(new WindowUpdateFrame(1, WINDOW), sent().get(0), "the bytes it did send are acknowledged as usual");
  }

  /**
   * Bytes written but below a quarter of the grown window are not granted yet; when the sender gives
   * the rest of its credit back, they are a quarter of the window left and are granted at once (the
   * sender, which returned all it had, would otherwise wait for them forever: DataPathTest stalled so).
   */
  @Test
  void bytesWrittenAreGrantedWhenTheCreditGivenBackMakesThemAQuarterOfTheWindow() {
    RecordingBudget budget = new RecordingBudget(7 * WINDOW);
    MuxStream s = acceptedWithStartCredit(budget);
    feed(data(1, WINDOW, false));
    s.consumed(WINDOW);
    assertTrue(sent().stream().noneMatch(f -> f instanceof WindowUpdateFrame), "a window of 8 x 64 KiB: 64 KiB written is below a quarter");
    feed(WindowUpdateFrame.giveBack(1, 7 * WINDOW));
    assertEquals(List.of(new WindowUpdateFrame(1, WINDOW)), sent(), "granted as soon as the window shrank to 64 KiB");
    assertTrue(ch.isOpen());
  }

  @Test
  void aRequestAfterTheCreditCameBackGrantsStartCreditAgain() {
    RecordingBudget budget = new RecordingBudget(3 * WINDOW);
    MuxStream s = acceptedWithStartCredit(budget);
    s.writeData(Unpooled.wrappedBuffer(new byte[10]), false);
    s.flush();
    List<Frame> first = sent();
    assertTrue(first.stream().noneMatch(f -> f instanceof WindowUpdateFrame), "the start credit is still out: nothing granted again");
    first.forEach(f -> io.netty.util.ReferenceCountUtil.release(f));
    feed(WindowUpdateFrame.giveBack(1, 3 * WINDOW));
    assertEquals(WINDOW, s.receiveWindow());
    s.writeData(Unpooled.wrappedBuffer(new byte[10]), false);
    s.flush();
    List<Frame> frames = sent();
    assertTrue(frames.contains(new WindowUpdateFrame(1, 3 * WINDOW, true)), "the next request takes start credit again: " + frames);
    frames.forEach(f -> io.netty.util.ReferenceCountUtil.release(f));
    assertEquals(6L * WINDOW, budget.reserved, "reserved both times");
    assertEquals(3L * WINDOW, budget.released);
  }

  @Test
  void givingBackBelowTheInitialWindowIsAFlowControlError() {
    feed(open(1, 0));
    feed(WindowUpdateFrame.giveBack(1, 1));
    assertEquals(WireCodes.GOAWAY_FLOW_CONTROL, goAway().code(), "the window never grew: nothing may be given back");
  }

  @Test
  void givingBackMoreThanTheCreditLeftIsAFlowControlError() {
    restartGrowing(8 * WINDOW);
    feed(open(1, 0));
    MuxStream s = accepted.get(0);
    s.budget(new RecordingBudget(WINDOW));
    s.grantStartCredit();
    s.flush();
    drainSent();
    feed(data(1, WINDOW, false), data(1, WINDOW / 2, false));
    feed(WindowUpdateFrame.giveBack(1, WINDOW));
    assertEquals(WireCodes.GOAWAY_FLOW_CONTROL, goAway().code(), "half a window of credit was left, a whole one given back");
  }

  @Test
  void theWaitBeforeGivingCreditBackFollowsTheRoundTripWithinItsBounds() {
    assertEquals(TimeUnit.SECONDS.toNanos(1), MuxStream.returnIdleNanos(-1), "no round trip measured: an idle second");
    assertEquals(TimeUnit.SECONDS.toNanos(1), MuxStream.returnIdleNanos(TimeUnit.MILLISECONDS.toNanos(100)), "4 short round trips are less than a second");
    assertEquals(TimeUnit.MILLISECONDS.toNanos(2_400), MuxStream.returnIdleNanos(TimeUnit.MILLISECONDS.toNanos(600)), "a satellite path: 4 round trips");
    assertEquals(TimeUnit.SECONDS.toNanos(5), MuxStream.returnIdleNanos(TimeUnit.SECONDS.toNanos(30)),
        "a PING that waited 30 s behind queued data does not hold the credit for 2 minutes");
  }

  @Test
  void aSenderGivesBackTheCreditItLeftUnusedAfterAnIdleSecond() {
    ch.freezeTime();
    feed(open(1, 0));
    MuxStream s = accepted.get(0);
    RecordingBudget budget = new RecordingBudget(0);
    s.budget(budget);
    feed(new WindowUpdateFrame(1, 7 * WINDOW, true)); // the peer's start credit
    assertEquals(8L * WINDOW, s.sendWindow());
    assertEquals(0, budget.reserved, "nothing reserved for a send queue that did not fill");
    s.writeData(Unpooled.wrappedBuffer(new byte[WINDOW]), false);
    assertEquals(MuxStream.SEND_QUEUE_LIMIT - WINDOW, budget.reserved, "the queue filled its start: it may hold up to its limit now");
    assertEquals(MuxStream.SEND_QUEUE_LIMIT - WINDOW, s.sendCredit());
    s.flush();
    drainSent();
    ch.advanceTimeBy(MuxStream.RETURN_IDLE_MILLIS - 1, TimeUnit.MILLISECONDS);
    ch.runScheduledPendingTasks();
    assertEquals(List.of(), sent(), "not idle long enough yet");
    ch.advanceTimeBy(2, TimeUnit.MILLISECONDS);
    ch.runScheduledPendingTasks();
    assertEquals(List.of(WindowUpdateFrame.giveBack(1, 7 * WINDOW)), sent(), "the credit beyond the initial window, unused, flag RETURN");
    assertEquals(0, s.sendWindow(), "the initial window less what is unacknowledged");
    assertEquals(MuxStream.SEND_QUEUE_LIMIT - WINDOW, budget.released, "the send queue's growth released");
    feed(new WindowUpdateFrame(1, WINDOW));
    ch.advanceTimeBy(10, TimeUnit.SECONDS);
    ch.runScheduledPendingTasks();
    assertEquals(WINDOW, s.sendWindow());
    assertTrue(sent().stream().noneMatch(f -> f instanceof WindowUpdateFrame), "nothing more to give back");
  }

  @Test
  void aWindowTheLegEmptiedSlowlyStaysSmall() {
    restartGrowing(4 * WINDOW);
    feed(open(1, 0));
    MuxStream s = accepted.get(0);
    int quarter = WINDOW / ReceiveWindow.JUDGED_PARTS;
    for (int i = 0; i < ReceiveWindow.JUDGED_PARTS; i++) {
      feed(data(1, quarter / 2, false));
      s.consumed(quarter / 2);
      // no PING answered: the interval is its floor, each quarter judged against a quarter of it
      ch.advanceTimeBy(ReceiveWindow.MIN_GROWTH_INTERVAL_MILLIS / ReceiveWindow.JUDGED_PARTS + 1, TimeUnit.MILLISECONDS);
      feed(data(1, quarter / 2, false));
      s.consumed(quarter / 2);
    }
    assertEquals(Collections.nCopies(ReceiveWindow.JUDGED_PARTS, new WindowUpdateFrame(1, quarter)), sent(),
        "each quarter took longer than its part of the interval: acknowledgements only");
    assertEquals(WINDOW, s.receiveWindow());
    feed(data(1, WINDOW, true));
    s.consumed(WINDOW);
    assertEquals(List.of(new WindowUpdateFrame(1, WINDOW)), sent(), "no growth after the peer's END_STREAM");
  }

  @Test
  void aWindowTheBudgetCannotHoldStaysAsItIs() {
    restartGrowing(4 * WINDOW);
    feed(open(1, 0));
    MuxStream s = accepted.get(0);
    s.budget(bytes -> false);
    feed(data(1, WINDOW, false));
    s.consumed(WINDOW);
    assertEquals(List.of(new WindowUpdateFrame(1, WINDOW)), sent());
    assertEquals(WINDOW, s.receiveWindow());
    feed(data(1, WINDOW, false), data(1, 1, false));
    assertEquals(WireCodes.GOAWAY_FLOW_CONTROL, goAway().code(), "beyond the window that did not grow");
  }

  @Test
  void growthCreditIsNoDeliveryAcknowledgement() {
    feed(open(1, 0));
    MuxStream s = accepted.get(0);
    s.writeData(Unpooled.wrappedBuffer(new byte[3]), true);
    s.flush();
    drainSent();
    feed(new WindowUpdateFrame(1, WINDOW, true));
    assertFalse(events.contains("delivered 1"), "the peer grew its window: the 3 bytes are not acknowledged by that");
    assertEquals(WINDOW + WINDOW - 3, s.sendWindow());
    feed(new WindowUpdateFrame(1, 3));
    assertTrue(events.contains("delivered 1"), events.toString());
  }

  @Test
  void aPingAckMustAnswerAPingSent() {
    ch.advanceTimeBy(5, TimeUnit.SECONDS);
    ch.runScheduledPendingTasks();
    List<Frame> pings = sent();
    long opaque = ((PingFrame) pings.get(pings.size() - 1)).opaque();
    feed(new PingFrame(opaque, true));
    assertTrue(ch.isOpen(), "the echo of a PING sent is fine");
    assertTrue(mux().rttNanos() >= 0);
    feed(new PingFrame(opaque, true));
    GoAwayFrame g = goAway();
    assertEquals(WireCodes.GOAWAY_PROTOCOL_ERROR, g.code());
    assertTrue(g.reason().contains("answers no PING sent"), g.reason());
  }

  @Test
  void forgedPingAcksDoNotKeepAPeerAlive() {
    // A peer that sends forged ACKs (and so keeps the connection busy) but never echoes is closed.
    feed(new PingFrame(42L, true));
    assertEquals(WireCodes.GOAWAY_PROTOCOL_ERROR, goAway().code());
  }

  private StreamMultiplexer mux() {
    return ch.pipeline().get(StreamMultiplexer.class);
  }
}
