package io.tcpopt.servicenode.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.tcpopt.servicenode.trust.PeerAdmission;
import io.tcpopt.servicenode.wire.DataFrame;
import io.tcpopt.servicenode.wire.FrameCodec;
import io.tcpopt.servicenode.wire.HelloFrame;
import io.tcpopt.servicenode.wire.OpenFrame;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The send side's scheduling on a real multiplexer whose connection is held unwritable, so the
 * test decides when each frame is taken: equal shares for old busy streams whatever their write
 * sizes, young streams whole in order of arrival ahead of them, and a small request ahead of any
 * backlog.
 */
class StreamSchedulerTest {
  private static final int WINDOW = 4 << 20;
  private static final InetSocketAddress SRC = new InetSocketAddress("198.18.1.2", 40000);
  private static final InetSocketAddress DST = new InetSocketAddress("198.19.1.2", 80);

  private EmbeddedChannel ch;
  private StreamMultiplexer mux;
  private final List<MuxStream> accepted = new ArrayList<>();
  private final List<Integer> roomAgain = new ArrayList<>();

  @BeforeEach
  void start() {
    SessionSettings settings = new SessionSettings("dc-1", "dc", 1 << 20, WINDOW, 100, Duration.ofSeconds(5), Duration.ofSeconds(10));
    StreamAcceptor acceptor = (stream, open) -> {
      open.release();
      accepted.add(stream);
      stream.handler(new DiscardingStreamHandler() {
        @Override
        public void onSendRoom() {
          roomAgain.add(stream.id());
        }
      });
    };
    SessionListener none = new SessionListener() {
      @Override
      public void sessionUp(StreamMultiplexer c) {}

      @Override
      public void sessionDown(StreamMultiplexer c, String reason) {}
    };
    mux = new StreamMultiplexer(settings, false, acceptor, none, (identity, name, site) -> PeerAdmission.admitted(name, site));
    ch = new EmbeddedChannel(new FrameCodec(1 << 20), mux);
    EmbeddedChannel enc = new EmbeddedChannel(new FrameCodec(1 << 20));
    enc.writeOutbound(new HelloFrame(HelloFrame.VERSION, 1 << 20, WINDOW, 100, "branch-1", "branch"));
    for (int id = 1; id <= 11; id += 2) {
      enc.writeOutbound(new OpenFrame(id, id, SRC, DST, 0, Unpooled.EMPTY_BUFFER));
    }
    ByteBuf b;
    while ((b = enc.readOutbound()) != null) {
      ch.writeInbound(b);
    }
    assertFalse(enc.finishAndReleaseAll());
    // Held unwritable: nothing leaves unless the test takes it from the scheduler.
    ch.unsafe().outboundBuffer().setUserDefinedWritability(1, false);
  }

  @AfterEach
  void stop() {
    mux.scheduler().clear();
    ch.releaseOutbound();
    assertFalse(ch.finishAndReleaseAll());
  }

  /** Queues {@code total} bytes on {@code s} in writes of {@code chunk}. */
  private static void queue(MuxStream s, int total, int chunk) {
    for (int sent = 0; sent < total; sent += chunk) {
      s.writeData(Unpooled.wrappedBuffer(new byte[Math.min(chunk, total - sent)]), false);
    }
    s.flush();
  }

  private DataFrame take() {
    return mux.scheduler().next(1 << 20);
  }

  /** Sends {@link StreamScheduler#YOUNG_BYTES} through {@code s} alone: it joins the round robin from now on. */
  private void age(MuxStream s) {
    for (long sent = 0; sent < StreamScheduler.YOUNG_BYTES; sent += MuxStream.SEND_QUEUE_LIMIT) {
      queue(s, MuxStream.SEND_QUEUE_LIMIT, 64 * 1024);
      DataFrame f;
      while ((f = take()) != null) {
        assertEquals(s.id(), f.streamId());
        f.release();
      }
    }
  }

  @Test
  void busyStreamsGetEqualSharesWhateverTheirWriteSizes() {
    int[] chunks = {1024, 8 * 1024, 64 * 1024, 200 * 1024};
    for (int i = 0; i < chunks.length; i++) {
      age(accepted.get(i));
    }
    for (int i = 0; i < chunks.length; i++) {
      queue(accepted.get(i), MuxStream.SEND_QUEUE_LIMIT, chunks[i]);
    }
    Map<Integer, Long> bytes = new HashMap<>();
    long total = 0;
    // Half of the backlog leaves; then every stream has had the same share, within one quantum.
    while (total < 2L * MuxStream.SEND_QUEUE_LIMIT) {
      DataFrame f = take();
      total += f.content().readableBytes();
      bytes.merge(f.streamId(), (long) f.content().readableBytes(), Long::sum);
      assertTrue(f.content().readableBytes() <= StreamScheduler.QUANTUM, "frames are cut to a quantum");
      f.release();
    }
    long min = bytes.values().stream().mapToLong(Long::longValue).min().orElseThrow();
    long max = bytes.values().stream().mapToLong(Long::longValue).max().orElseThrow();
    assertEquals(4, bytes.size(), bytes.toString());
    assertTrue(max - min <= StreamScheduler.QUANTUM, "shares " + bytes);
  }

  @Test
  void aSmallRequestLeavesBeforeTheBulkBacklog() {
    for (int i = 0; i < 4; i++) {
      queue(accepted.get(i), MuxStream.SEND_QUEUE_LIMIT, 64 * 1024);
    }
    for (int i = 0; i < 10; i++) {
      take().release(); // the bulk streams are under way
    }
    MuxStream interactive = accepted.get(4);
    queue(interactive, 1024, 1024);
    DataFrame next = take();
    assertEquals(interactive.id(), next.streamId(), "the 1 KB request is the very next frame, ahead of ~700 KB of bulk");
    assertEquals(1024, next.content().readableBytes());
    next.release();
  }

  @Test
  void youngStreamsFinishInOrderOfArrival() {
    int n = 6;
    for (int i = 0; i < n; i++) {
      accepted.get(i).writeData(Unpooled.wrappedBuffer(new byte[MuxStream.SEND_QUEUE_LIMIT]), true);
    }
    Map<Integer, Long> bytes = new HashMap<>();
    List<Integer> finished = new ArrayList<>();
    Map<Integer, Long> othersWhenFirstFinished = null;
    DataFrame f;
    while ((f = take()) != null) {
      bytes.merge(f.streamId(), (long) f.content().readableBytes(), Long::sum);
      if (f.endStream()) {
        finished.add(f.streamId());
        if (othersWhenFirstFinished == null) {
          othersWhenFirstFinished = new HashMap<>(bytes);
          othersWhenFirstFinished.remove(f.streamId());
        }
      }
      f.release();
    }
    assertEquals(accepted.subList(0, n).stream().map(MuxStream::id).toList(), finished, "each response whole, in order of arrival");
    assertEquals(n - 1, othersWhenFirstFinished.size());
    for (long other : othersWhenFirstFinished.values()) {
      assertEquals(StreamScheduler.QUANTUM, other, "the others had their fresh quantum only: " + othersWhenFirstFinished);
    }
  }

  @Test
  void aYoungStreamThatRanDryIsFreshThenBackAtItsPlace() {
    MuxStream first = accepted.get(0);
    MuxStream second = accepted.get(1);
    queue(first, 2 * StreamScheduler.QUANTUM, StreamScheduler.QUANTUM);
    queue(second, MuxStream.SEND_QUEUE_LIMIT, 64 * 1024);
    for (int i = 0; i < 3; i++) {
      take().release(); // the fresh quanta of both, then the rest of the first: it has run dry
    }
    DataFrame f = take();
    assertEquals(second.id(), f.streamId());
    f.release();
    queue(first, 2 * StreamScheduler.QUANTUM, StreamScheduler.QUANTUM);
    for (int i = 0; i < 2; i++) {
      f = take();
      assertEquals(first.id(), f.streamId(), i == 0 ? "busy again: fresh for a quantum" : "then back at its place, ahead of the one that arrived after it");
      f.release();
    }
  }

  @Test
  void eachMessageOfAYoungRequestStreamMayTakeTheExpressConnection() {
    MuxStream echo = accepted.get(0);
    queue(accepted.get(1), MuxStream.SEND_QUEUE_LIMIT, 64 * 1024);
    for (int i = 0; i < 3; i++) {
      queue(echo, 1024, 1024);
      DataFrame f = mux.scheduler().nextInteractive(1 << 20, 0);
      assertEquals(echo.id(), f == null ? -1 : f.streamId(), "message " + i + " of a stream that runs dry between its messages");
      f.release();
    }
    assertNull(mux.scheduler().nextInteractive(1 << 20, 0), "the bulk stream's backlog is not interactive");
  }

  @Test
  void aYoungStreamGoesAheadOfTheRoundRobin() {
    MuxStream old = accepted.get(0);
    MuxStream young = accepted.get(1);
    age(old);
    queue(old, MuxStream.SEND_QUEUE_LIMIT, 64 * 1024);
    queue(young, MuxStream.SEND_QUEUE_LIMIT, 64 * 1024);
    long oldBytes = 0;
    long youngBytes = 0;
    while (youngBytes < MuxStream.SEND_QUEUE_LIMIT) {
      DataFrame f = take();
      if (f.streamId() == young.id()) {
        youngBytes += f.content().readableBytes();
      } else {
        oldBytes += f.content().readableBytes();
      }
      f.release();
    }
    assertEquals(StreamScheduler.QUANTUM, oldBytes, "the old stream had its fresh quantum only while the young one sent its " + youngBytes);
  }

  @Test
  void aFullQueueStopsCreditAndReportsRoomOnceDrainedToHalf() {
    MuxStream s = accepted.get(0);
    queue(s, MuxStream.SEND_QUEUE_LIMIT, 64 * 1024);
    assertEquals(0, s.sendCredit(), "credit is bounded by the room in the send queue");
    long taken = 0;
    while (taken < MuxStream.SEND_QUEUE_LIMIT / 2) {
      DataFrame f = take();
      taken += f.content().readableBytes();
      f.release();
    }
    assertEquals(MuxStream.SEND_QUEUE_LIMIT / 2, s.sendCredit());
    MuxStream room;
    while ((room = mux.scheduler().pollRoomAgain()) != null) {
      room.onSendRoom();
    }
    assertEquals(List.of(s.id()), roomAgain);
  }

  @Test
  void theEndLeavesAfterTheBytesOnTheLastFrame() {
    MuxStream s = accepted.get(0);
    s.writeData(Unpooled.wrappedBuffer(new byte[40_000]), true);
    DataFrame first = take();
    DataFrame last = take();
    assertEquals(StreamScheduler.QUANTUM, first.content().readableBytes());
    assertFalse(first.endStream());
    assertEquals(40_000 - StreamScheduler.QUANTUM, last.content().readableBytes());
    assertTrue(last.endStream());
    first.release();
    last.release();
    assertNull(take());
    assertEquals(0, s.sendCredit(), "nothing may follow the end");
  }

}
