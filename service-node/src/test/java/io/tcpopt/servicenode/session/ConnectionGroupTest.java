package io.tcpopt.servicenode.session;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.tcpopt.servicenode.wire.WireCodes;
import java.net.InetSocketAddress;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two WAN connections of one dialler's pool and the two the acceptor sees, on EmbeddedChannels
 * whose bytes are carried between them by the test (issue 9, wire format 2): a stream's DATA sent
 * on whichever connection has room arrive in order at the far leg (SHA-256); when one connection is
 * lost, exactly the streams that sent bytes on it the peer had not acknowledged are reset (and the
 * streams living on it, as before), the others go on. Frames that found no room anywhere leave on
 * the first connection that gets some, and only a connection with frames waiting is woken by
 * another's writability. Which connection has room is set through Netty's user-defined
 * writability, so every step is deterministic.
 */
class ConnectionGroupTest {
  private static final int WINDOW = 256 * 1024;
  private static final InetSocketAddress SRC = new InetSocketAddress("198.18.1.2", 40000);
  private static final InetSocketAddress DST = new InetSocketAddress("198.19.1.2", 80);

  /** The dialler's connections 0 and 1 (one pool), and the acceptor's ends of them. */
  private EmbeddedPool wan;
  /** The acceptor's streams by id (of the dialler's connection 0 or 1), what their legs got, and their events. */
  private final Map<String, MuxStream> dcStreams = new LinkedHashMap<>();
  private final Map<String, ByteBuf> dcReceived = new LinkedHashMap<>();
  private final List<String> events = new ArrayList<>();
  private SessionSettings dcSettings;

  @BeforeEach
  void start() {
    SessionSettings branchSettings = new SessionSettings("branch-1", "branch", 1 << 20, WINDOW, 100, Duration.ofSeconds(30),
        Duration.ofSeconds(10));
    dcSettings = new SessionSettings("dc-1", "dc", 1 << 20, WINDOW, 100, Duration.ofSeconds(30), Duration.ofSeconds(10));
    wan = new EmbeddedPool(branchSettings, dcSettings, new int[] {0, 1}, connection -> (stream, open) -> {
      String key = connection + ":" + stream.id();
      ByteBuf got = Unpooled.buffer();
      got.writeBytes(open.content());
      open.release();
      dcStreams.put(key, stream);
      dcReceived.put(key, got);
      stream.handler(new DiscardingStreamHandler() {
        @Override
        public void onData(ByteBuf data, boolean endStream) {
          got.writeBytes(data);
          data.release();
          if (endStream) {
            events.add("dc end " + key + " at " + got.writerIndex());
          }
        }

        @Override
        public void onReset(int code, String reason) {
          events.add("dc reset " + key + " " + WireCodes.resetName(code));
        }
      });
    });
    assertEquals(2, wan.pool.size(), "both dialled connections joined the pool's group");
    assertEquals(1, dcSettings.acceptedGroups().size(), "the acceptor found both in one group");
    assertTrue(wan.branchMux[0].isUp() && wan.branchMux[1].isUp());
  }

  @AfterEach
  void stop() {
    for (ByteBuf b : dcReceived.values()) {
      b.release();
    }
    wan.close();
  }

  /** Connection {@code c} of the dialler has room ({@code true}) or none: the frames go to the other. */
  private void room(int c, boolean room) {
    EmbeddedPool.room(wan.branch[c], room);
  }

  /** A stream opened on connection {@code c} whose OPEN's 64 KiB the acceptor writes to its leg at once (so it knows it and grants). */
  private MuxStream open(int c, List<String> branchEvents, String name) {
    MuxStream s = wan.branchMux[c].open(1L, SRC, DST, 0, null, Unpooled.wrappedBuffer(new byte[64 * 1024]), new DiscardingStreamHandler() {
      @Override
      public void onReset(int code, String reason) {
        branchEvents.add(name + " reset " + WireCodes.resetName(code));
      }
    });
    wan.carry();
    MuxStream far = dcStreams.get(c + ":" + s.id());
    far.consumed(64 * 1024);
    wan.carry();
    return s;
  }

  private void write(MuxStream s, byte[] bytes) {
    s.writeData(Unpooled.wrappedBuffer(bytes), false);
    s.flush();
    wan.carry();
  }

  private static byte[] random(Random r, int n) {
    byte[] b = new byte[n];
    r.nextBytes(b);
    return b;
  }

  @Test
  void aStreamsDataSpreadOverTheGroupArriveInOrder() throws Exception {
    List<String> branchEvents = new ArrayList<>();
    MuxStream s = open(0, branchEvents, "s");
    Random r = new Random(3);
    MessageDigest sent = MessageDigest.getInstance("SHA-256");
    sent.update(new byte[64 * 1024]);
    long[] relayed = new long[2];
    for (int i = 0; i < 12; i++) {
      int via = i % 3 == 0 ? 0 : 1;
      room(via, true);
      room(1 - via, false);
      byte[] chunk = random(r, 20_000 + r.nextInt(40_000));
      sent.update(chunk);
      long before = wan.toDc[via];
      write(s, chunk);
      relayed[via] += wan.toDc[via] - before;
      assertTrue(wan.toDc[via] - before >= chunk.length, "chunk " + i + " crossed connection " + via);
      dcStreams.get("0:" + s.id()).consumed(chunk.length);
      wan.carry();
    }
    room(0, true);
    room(1, true);
    assertTrue(relayed[0] > 0 && relayed[1] > 0, "both connections carried the stream: " + relayed[0] + " / " + relayed[1]);
    ByteBuf got = dcReceived.get("0:" + s.id());
    byte[] all = new byte[got.readableBytes()];
    got.getBytes(got.readerIndex(), all);
    assertArrayEquals(sent.digest(), MessageDigest.getInstance("SHA-256").digest(all), "SHA-256 of what the far leg got");
    assertEquals(List.of(), branchEvents);
  }

  /**
   * Random interleavings: each round, chunks of one stream go out on random connections of the
   * group (the other one has no room), then the connections' bytes reach the acceptor interleaved
   * at random ({@link EmbeddedPool#carryInterleaved}), so a later chunk often arrives, on the other
   * connection, before an earlier one. The far leg gets every byte in stream order (SHA-256) and the
   * END once, after the last byte.
   */
  @Test
  void randomInterleavingsOfAStreamsFramesAcrossTheGroupReassembleByteExact() throws Exception {
    Random r = new Random(20261203L);
    for (int stream = 0; stream < 8; stream++) {
      List<String> branchEvents = new ArrayList<>();
      MuxStream s = open(0, branchEvents, "s" + stream);
      String key = "0:" + s.id();
      MessageDigest sent = MessageDigest.getInstance("SHA-256");
      sent.update(new byte[64 * 1024]);
      long total = 64 * 1024;
      long consumed = 64 * 1024;
      long[] before = wan.toDc.clone();
      int rounds = 3 + r.nextInt(6);
      for (int round = 0; round < rounds; round++) {
        int chunks = 2 + r.nextInt(5);
        for (int i = 0; i < chunks; i++) {
          int via = r.nextInt(2);
          room(via, true);
          room(1 - via, false);
          byte[] chunk = random(r, 1 + r.nextInt(WINDOW / 2 / chunks));
          sent.update(chunk);
          total += chunk.length;
          s.writeData(Unpooled.wrappedBuffer(chunk), round == rounds - 1 && i == chunks - 1);
          s.flush();
        }
        room(0, true);
        room(1, true);
        wan.carryInterleaved(r);
        int arrived = (int) (dcReceived.get(key).writerIndex() - consumed);
        dcStreams.get(key).consumed(arrived); // the leg took it: credit back for the next round
        consumed += arrived;
        wan.carry();
      }
      String context = "stream " + stream + " (" + rounds + " rounds, " + total + " bytes)";
      assertTrue(wan.toDc[0] > before[0] && wan.toDc[1] > before[1], "both connections carried " + context);
      ByteBuf got = dcReceived.get(key);
      assertEquals(total, got.readableBytes(), context);
      byte[] all = new byte[got.readableBytes()];
      got.getBytes(got.readerIndex(), all);
      assertArrayEquals(sent.digest(), MessageDigest.getInstance("SHA-256").digest(all), "SHA-256 of what the far leg got: " + context);
      assertEquals(List.of("dc end " + key + " at " + total), events.stream().filter(e -> e.startsWith("dc end " + key + " ")).toList(),
          "the END once, after every byte: " + context);
      assertEquals(List.of(), branchEvents, context);
    }
  }

  @Test
  void framesThatFoundNoRoomLeaveOnTheFirstMemberThatGetsSome() throws Exception {
    List<String> branchEvents = new ArrayList<>();
    MuxStream s = open(0, branchEvents, "s");
    room(0, false);
    room(1, false);
    byte[] chunk = random(new Random(5), 90_000);
    long before = wan.toDc[0] + wan.toDc[1];
    write(s, chunk);
    assertEquals(before, wan.toDc[0] + wan.toDc[1], "no member had room: the frames wait");
    assertTrue(wan.branchMux[0].awaitingRoom());

    room(1, true); // connection 1's own writability change; connection 0 holds the frames
    wan.carry();
    assertTrue(wan.toDc[1] >= chunk.length, "connection 1 was woken for connection 0's frames and carried them");
    assertFalse(wan.branchMux[0].awaitingRoom());
    ByteBuf got = dcReceived.get("0:" + s.id());
    byte[] all = new byte[got.readableBytes()];
    got.getBytes(got.readerIndex(), all);
    MessageDigest sent = MessageDigest.getInstance("SHA-256");
    sent.update(new byte[64 * 1024]);
    sent.update(chunk);
    assertArrayEquals(sent.digest(), MessageDigest.getInstance("SHA-256").digest(all), "SHA-256 of what the far leg got");
    assertEquals(List.of(), branchEvents);
  }

  @Test
  void aMemberWithNothingWaitingIsNotWokenWhenAnotherGetsRoom() throws Exception {
    List<String> branchEvents = new ArrayList<>();
    MuxStream s = open(0, branchEvents, "s");
    int[] flushesOfOne = new int[1];
    wan.branch[1].pipeline().addFirst(new ChannelOutboundHandlerAdapter() {
      @Override
      public void flush(ChannelHandlerContext ctx) {
        flushesOfOne[0]++;
        ctx.flush();
      }
    });
    room(1, false); // connection 1 takes nothing of stream s's
    Random r = new Random(7);
    MessageDigest sent = MessageDigest.getInstance("SHA-256");
    sent.update(new byte[64 * 1024]);
    for (int i = 0; i < 20; i++) {
      room(0, false);
      byte[] chunk = random(r, 10_000 + r.nextInt(20_000));
      sent.update(chunk);
      write(s, chunk);
      room(0, true); // connection 0's writability change: the frames go on their own connection
      wan.carry();
      dcStreams.get("0:" + s.id()).consumed(chunk.length);
      wan.carry();
    }
    assertEquals(0, flushesOfOne[0], "connection 1 had nothing waiting: never woken");
    ByteBuf got = dcReceived.get("0:" + s.id());
    byte[] all = new byte[got.readableBytes()];
    got.getBytes(got.readerIndex(), all);
    assertArrayEquals(sent.digest(), MessageDigest.getInstance("SHA-256").digest(all), "SHA-256 of what the far leg got");
    assertEquals(List.of(), branchEvents);
  }

  @Test
  void aLostConnectionResetsExactlyTheStreamsWithBytesUnacknowledgedOnIt() {
    List<String> branchEvents = new ArrayList<>();
    MuxStream acked = open(0, branchEvents, "acked"); // sends on 1, the peer acknowledges it all
    MuxStream unacked = open(0, branchEvents, "unacked"); // sends on 1, the peer holds it unacknowledged
    MuxStream homeOnly = open(0, branchEvents, "homeOnly"); // sends on its own connection only, unacknowledged
    MuxStream living = open(1, branchEvents, "living"); // lives on the lost connection
    long before = wan.toDc[1];
    room(0, false);
    write(acked, new byte[70_000]);
    write(unacked, new byte[70_000]);
    assertTrue(wan.toDc[1] - before >= 140_000, "acked's and unacked's bytes crossed connection 1");
    dcStreams.get("0:" + acked.id()).consumed(70_000);
    wan.carry();
    room(0, true);
    room(1, false);
    write(homeOnly, new byte[70_000]);
    assertEquals(70_000 + 64 * 1024, dcReceived.get("0:" + unacked.id()).readableBytes(), "unacked's bytes crossed connection 1 and arrived");
    assertEquals(70_000 + 64 * 1024, dcReceived.get("0:" + acked.id()).readableBytes());
    assertEquals(64 * 1024 + 70_000, acked.acknowledgedOffset(), "everything acked sent is acknowledged (a grant is due at a quarter window)");
    assertTrue(unacked.acknowledgedOffset() < 64 * 1024 + 70_000);

    wan.lose(1);
    assertEquals(new TreeSet<>(List.of("living reset INTERNAL", "unacked reset INTERNAL")), new TreeSet<>(branchEvents),
        "exactly the stream living on the lost connection and the one with unacknowledged bytes on it");
    assertTrue(events.contains("dc reset 0:" + unacked.id() + " INTERNAL"), "the peer resets its leg too (RST_STREAM on connection 0): " + events);
    assertFalse(events.contains("dc reset 0:" + acked.id() + " INTERNAL"), events.toString());
    assertFalse(events.contains("dc reset 0:" + homeOnly.id() + " INTERNAL"), events.toString());

    // The survivors go on, on the connection left.
    write(acked, new byte[1000]);
    write(homeOnly, new byte[1000]);
    assertEquals(64 * 1024 + 71_000, dcReceived.get("0:" + acked.id()).readableBytes());
    assertEquals(64 * 1024 + 71_000, dcReceived.get("0:" + homeOnly.id()).readableBytes());
  }

  @Test
  void theAcceptorForgetsAGroupOnceItsLastConnectionIsGone() {
    MuxStream stream = open(0, new ArrayList<>(), "s");
    write(stream, new byte[1000]);
    wan.lose(1);
    assertEquals(1, dcSettings.acceptedGroups().size(), "connection 0 is still up");
    wan.lose(0);
    assertEquals(0, dcSettings.acceptedGroups().size());
    SessionSettings otherNode = new SessionSettings("dc-1", "dc", 1 << 20, WINDOW, 100, Duration.ofSeconds(30), Duration.ofSeconds(10));
    assertEquals(0, otherNode.acceptedGroups().size(), "another node of the same name in this process keeps its own");
  }
}
