package io.tcpopt.servicenode.session;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.tcpopt.servicenode.trust.PeerAdmission;
import io.tcpopt.servicenode.wire.FrameCodec;
import java.net.InetSocketAddress;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A pool of one bulk connection (0) and its express connection (1), and the acceptor's ends of
 * them, on EmbeddedChannels whose bytes the test carries (issue 9, 9.3): a request/echo stream's
 * small writes cross the express connection in both directions, even while the bulk's connection
 * has no room; a bulk stream's bytes never do while the bulk's connection is up; every byte of both
 * arrives in order (SHA-256). The requests stay within {@link InteractiveAllowance#BURST}, so the
 * test does not depend on how fast it runs. Which connection has room is set through Netty's user-defined
 * writability, so every step is deterministic.
 */
class ExpressConnectionTest {
  private static final int WINDOW = 256 * 1024;
  private static final InetSocketAddress SRC = new InetSocketAddress("198.18.1.2", 40000);
  private static final InetSocketAddress DST = new InetSocketAddress("198.19.1.2", 80);
  private static final int BULK = 0;
  private static final int EXPRESS = 1;

  private final EmbeddedChannel[] branch = new EmbeddedChannel[2];
  private final EmbeddedChannel[] dc = new EmbeddedChannel[2];
  private final StreamMultiplexer[] branchMux = new StreamMultiplexer[2];
  private final StreamMultiplexer[] dcMux = new StreamMultiplexer[2];
  /** The acceptor's streams by id, and what their legs got (the OPEN's bytes first). */
  private final Map<Integer, MuxStream> dcStreams = new LinkedHashMap<>();
  private final Map<Integer, ByteBuf> dcReceived = new LinkedHashMap<>();
  /** What the dialler's legs got, by stream id. */
  private final Map<Integer, ByteBuf> branchReceived = new LinkedHashMap<>();
  /** Bytes carried over each connection, towards the acceptor and back. */
  private final long[] toDc = new long[2];
  private final long[] toBranch = new long[2];

  @BeforeEach
  void start() {
    SessionSettings branchSettings = new SessionSettings("branch-1", "branch", 1 << 20, WINDOW, 100, Duration.ofSeconds(30),
        Duration.ofSeconds(10));
    SessionSettings dcSettings = new SessionSettings("dc-test-express", "dc", 1 << 20, WINDOW, 100, Duration.ofSeconds(30),
        Duration.ofSeconds(10));
    ConnectionGroup pool = new ConnectionGroup();
    long session = PooledConnection.newSession();
    StreamAcceptor acceptor = (stream, open) -> {
      ByteBuf got = Unpooled.buffer();
      got.writeBytes(open.content());
      open.release();
      dcStreams.put(stream.id(), stream);
      dcReceived.put(stream.id(), got);
      stream.handler(new DiscardingStreamHandler() {
        @Override
        public void onData(ByteBuf data, boolean endStream) {
          got.writeBytes(data);
          data.release();
        }
      });
    };
    for (int c = 0; c < 2; c++) {
      branchMux[c] = new StreamMultiplexer(branchSettings, true, null, listener(), (identity, name, site) -> PeerAdmission.admitted(name, site))
          .pooledAs(new PooledConnection(session, PooledConnection.number(c, c == EXPRESS), pool));
      branch[c] = new EmbeddedChannel(new FrameCodec(1 << 20), branchMux[c]);
      dcMux[c] = new StreamMultiplexer(dcSettings, false, acceptor, listener(), (identity, name, site) -> PeerAdmission.admitted(name, site));
      dc[c] = new EmbeddedChannel(new FrameCodec(1 << 20), dcMux[c]);
    }
    carry();
    assertTrue(branchMux[EXPRESS].isExpress() && dcMux[EXPRESS].isExpress(), "both ends know the express connection from its number");
    assertTrue(!branchMux[BULK].isExpress() && !dcMux[BULK].isExpress());
  }

  @AfterEach
  void stop() {
    for (ByteBuf b : dcReceived.values()) {
      b.release();
    }
    for (ByteBuf b : branchReceived.values()) {
      b.release();
    }
    for (int c = 0; c < 2; c++) {
      branch[c].finishAndReleaseAll();
      dc[c].finishAndReleaseAll();
    }
  }

  private static SessionListener listener() {
    return new SessionListener() {
      @Override
      public void sessionUp(StreamMultiplexer connection) {}

      @Override
      public void sessionDown(StreamMultiplexer connection, String reason) {}
    };
  }

  /** Runs both ends' tasks and carries bytes each way until nothing moves. */
  private void carry() {
    for (int round = 0; round < 1000; round++) {
      boolean moved = false;
      for (int c = 0; c < 2; c++) {
        long in = move(branch[c], dc[c]);
        long out = move(dc[c], branch[c]);
        toDc[c] += in;
        toBranch[c] += out;
        moved |= in > 0 || out > 0;
      }
      if (!moved) {
        return;
      }
    }
    throw new AssertionError("bytes still moving after 1000 rounds");
  }

  private static long move(EmbeddedChannel from, EmbeddedChannel to) {
    from.runPendingTasks();
    long moved = 0;
    ByteBuf b;
    while ((b = from.readOutbound()) != null) {
      moved += b.readableBytes();
      to.writeInbound(b);
    }
    to.runPendingTasks();
    return moved;
  }

  /** Both ends of connection {@code c} have room ({@code true}) or none. */
  private void room(int c, boolean room) {
    for (EmbeddedChannel ch : new EmbeddedChannel[] {branch[c], dc[c]}) {
      ch.unsafe().outboundBuffer().setUserDefinedWritability(1, room);
      ch.runPendingTasks();
    }
  }

  /** A stream opened on the bulk connection, known to the peer (its OPEN answered by a grant). */
  private MuxStream open() {
    ByteBuf got = Unpooled.buffer();
    MuxStream s = branchMux[BULK].open(1L, SRC, DST, 0, null, Unpooled.wrappedBuffer(new byte[64 * 1024]), new DiscardingStreamHandler() {
      @Override
      public void onData(ByteBuf data, boolean endStream) {
        got.writeBytes(data);
        data.release();
      }
    });
    branchReceived.put(s.id(), got);
    carry();
    dcStreams.get(s.id()).consumed(64 * 1024);
    carry();
    return s;
  }

  private void write(MuxStream s, byte[] bytes) {
    s.writeData(Unpooled.wrappedBuffer(bytes), false);
    s.flush();
    carry();
  }

  private static byte[] sha256(ByteBuf b) throws Exception {
    byte[] all = new byte[b.readableBytes()];
    b.getBytes(b.readerIndex(), all);
    return MessageDigest.getInstance("SHA-256").digest(all);
  }

  @Test
  void requestsAndEchoesCrossTheExpressConnectionAndBulkNever() throws Exception {
    MuxStream bulk = open();
    MuxStream echo = open();
    MuxStream dcEcho = dcStreams.get(echo.id());
    Random r = new Random(9);
    MessageDigest bulkSent = MessageDigest.getInstance("SHA-256");
    bulkSent.update(new byte[64 * 1024]);
    MessageDigest requests = MessageDigest.getInstance("SHA-256");
    requests.update(new byte[64 * 1024]);
    MessageDigest echoes = MessageDigest.getInstance("SHA-256");
    for (int i = 0; i < 10; i++) { // 10 requests of at most 1,200 bytes stay within a stream's burst however fast the test runs
      byte[] chunk = new byte[60_000 + r.nextInt(100_000)];
      r.nextBytes(chunk);
      bulkSent.update(chunk);
      long expressBefore = toDc[EXPRESS];
      write(bulk, chunk);
      assertEquals(expressBefore, toDc[EXPRESS], "bulk chunk " + i + " stayed off the express connection");
      dcStreams.get(bulk.id()).consumed(chunk.length);

      room(BULK, i % 2 == 0); // every other request finds the bulk's connection full
      byte[] request = new byte[1000 + r.nextInt(200)];
      r.nextBytes(request);
      requests.update(request);
      write(echo, request);
      assertTrue(toDc[EXPRESS] - expressBefore >= request.length, "request " + i + " crossed the express connection");
      dcEcho.consumed(request.length);
      long backBefore = toBranch[EXPRESS];
      echoes.update(request);
      dcEcho.writeData(Unpooled.wrappedBuffer(request), false);
      dcEcho.flush();
      carry();
      assertTrue(toBranch[EXPRESS] - backBefore >= request.length, "echo " + i + " crossed the express connection back");
      room(BULK, true);
      carry();
    }
    assertArrayEquals(bulkSent.digest(), sha256(dcReceived.get(bulk.id())), "SHA-256 of the bulk at the far leg");
    assertArrayEquals(requests.digest(), sha256(dcReceived.get(echo.id())), "SHA-256 of the requests at the far leg");
    assertArrayEquals(echoes.digest(), sha256(branchReceived.get(echo.id())), "SHA-256 of the echoes at the near leg");
  }
}
