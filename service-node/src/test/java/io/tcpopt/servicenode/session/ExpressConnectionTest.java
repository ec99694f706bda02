package io.tcpopt.servicenode.session;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.net.InetSocketAddress;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A pool of one bulk connection (0) and its express connection (1), and the acceptor's ends of
 * them, on EmbeddedChannels whose bytes the test carries ({@link EmbeddedPool}, issue 9, 9.3): a
 * request/echo stream's small writes cross the express connection in both directions, even while
 * the bulk's connection has no room; a bulk stream's bytes never do while the bulk's connection is
 * up; every byte of both arrives in order (SHA-256). The requests stay within {@link
 * InteractiveAllowance#BURST}, so the test does not depend on how fast it runs. A newer express
 * connection of the pool takes the older one's place at both ends.
 */
class ExpressConnectionTest {
  private static final int WINDOW = 256 * 1024;
  private static final InetSocketAddress SRC = new InetSocketAddress("198.18.1.2", 40000);
  private static final InetSocketAddress DST = new InetSocketAddress("198.19.1.2", 80);
  private static final int BULK = 0;
  private static final int EXPRESS = 1;

  private EmbeddedPool wan;
  /** The acceptor's streams by id, and what their legs got (the OPEN's bytes first). */
  private final Map<Integer, MuxStream> dcStreams = new LinkedHashMap<>();
  private final Map<Integer, ByteBuf> dcReceived = new LinkedHashMap<>();
  /** What the dialler's legs got, by stream id. */
  private final Map<Integer, ByteBuf> branchReceived = new LinkedHashMap<>();

  /** Dials the pool's connections as {@code numbers} ({@link PooledConnection#number}). */
  private void start(int... numbers) {
    SessionSettings branchSettings = new SessionSettings("branch-1", "branch", 1 << 20, WINDOW, 100, Duration.ofSeconds(30),
        Duration.ofSeconds(10));
    SessionSettings dcSettings = new SessionSettings("dc-test-express", "dc", 1 << 20, WINDOW, 100, Duration.ofSeconds(30),
        Duration.ofSeconds(10));
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
    wan = new EmbeddedPool(branchSettings, dcSettings, numbers, c -> acceptor);
  }

  @AfterEach
  void stop() {
    for (ByteBuf b : dcReceived.values()) {
      b.release();
    }
    for (ByteBuf b : branchReceived.values()) {
      b.release();
    }
    wan.close();
  }

  /** Both ends of connection {@code c} have room ({@code true}) or none. */
  private void room(int c, boolean room) {
    EmbeddedPool.room(wan.branch[c], room);
    EmbeddedPool.room(wan.dc[c], room);
  }

  /** A stream opened on the bulk connection, known to the peer (its OPEN answered by a grant). */
  private MuxStream open() {
    ByteBuf got = Unpooled.buffer();
    MuxStream s = wan.branchMux[BULK].open(1L, SRC, DST, 0, null, Unpooled.wrappedBuffer(new byte[64 * 1024]), new DiscardingStreamHandler() {
      @Override
      public void onData(ByteBuf data, boolean endStream) {
        got.writeBytes(data);
        data.release();
      }
    });
    branchReceived.put(s.id(), got);
    wan.carry();
    dcStreams.get(s.id()).consumed(64 * 1024);
    wan.carry();
    return s;
  }

  private void write(MuxStream s, byte[] bytes) {
    s.writeData(Unpooled.wrappedBuffer(bytes), false);
    s.flush();
    wan.carry();
  }

  private static byte[] sha256(ByteBuf b) throws Exception {
    byte[] all = new byte[b.readableBytes()];
    b.getBytes(b.readerIndex(), all);
    return MessageDigest.getInstance("SHA-256").digest(all);
  }

  @Test
  void requestsAndEchoesCrossTheExpressConnectionAndBulkNever() throws Exception {
    start(PooledConnection.number(0, false), PooledConnection.number(1, true));
    assertTrue(wan.branchMux[EXPRESS].isExpress() && wan.dcMux[EXPRESS].isExpress(), "both ends know the express connection from its number");
    assertTrue(!wan.branchMux[BULK].isExpress() && !wan.dcMux[BULK].isExpress());
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
      long expressBefore = wan.toDc[EXPRESS];
      write(bulk, chunk);
      assertEquals(expressBefore, wan.toDc[EXPRESS], "bulk chunk " + i + " stayed off the express connection");
      dcStreams.get(bulk.id()).consumed(chunk.length);

      room(BULK, i % 2 == 0); // every other request finds the bulk's connection full
      byte[] request = new byte[1000 + r.nextInt(200)];
      r.nextBytes(request);
      requests.update(request);
      write(echo, request);
      assertTrue(wan.toDc[EXPRESS] - expressBefore >= request.length, "request " + i + " crossed the express connection");
      dcEcho.consumed(request.length);
      long backBefore = wan.toBranch[EXPRESS];
      echoes.update(request);
      dcEcho.writeData(Unpooled.wrappedBuffer(request), false);
      dcEcho.flush();
      wan.carry();
      assertTrue(wan.toBranch[EXPRESS] - backBefore >= request.length, "echo " + i + " crossed the express connection back");
      room(BULK, true);
      wan.carry();
    }
    assertArrayEquals(bulkSent.digest(), sha256(dcReceived.get(bulk.id())), "SHA-256 of the bulk at the far leg");
    assertArrayEquals(requests.digest(), sha256(dcReceived.get(echo.id())), "SHA-256 of the requests at the far leg");
    assertArrayEquals(echoes.digest(), sha256(branchReceived.get(echo.id())), "SHA-256 of the echoes at the near leg");
  }

  @Test
  void aNewerExpressConnectionTakesTheOlderOnesPlaceAtBothEnds() throws Exception {
    int older = 1;
    int newer = 2;
    start(PooledConnection.number(0, false), PooledConnection.number(older, true), PooledConnection.number(newer, true));
    MuxStream echo = open();
    MuxStream dcEcho = dcStreams.get(echo.id());
    Random r = new Random(11);
    MessageDigest requests = MessageDigest.getInstance("SHA-256");
    requests.update(new byte[64 * 1024]);
    MessageDigest echoes = MessageDigest.getInstance("SHA-256");
    room(BULK, false);
    for (int i = 0; i < 5; i++) {
      byte[] request = new byte[1000 + r.nextInt(200)];
      r.nextBytes(request);
      requests.update(request);
      long olderBefore = wan.toDc[older];
      long newerBefore = wan.toDc[newer];
      write(echo, request);
      assertTrue(wan.toDc[newer] - newerBefore >= request.length, "request " + i + " crossed the newer express connection");
      assertEquals(olderBefore, wan.toDc[older], "request " + i + " left the older one alone");
      dcEcho.consumed(request.length);
      long olderBack = wan.toBranch[older];
      long newerBack = wan.toBranch[newer];
      echoes.update(request);
      dcEcho.writeData(Unpooled.wrappedBuffer(request), false);
      dcEcho.flush();
      wan.carry();
      assertTrue(wan.toBranch[newer] - newerBack >= request.length, "echo " + i + " crossed the newer express connection back");
      assertEquals(olderBack, wan.toBranch[older], "echo " + i + " left the older one alone");
    }
    room(BULK, true);
    wan.carry();
    assertArrayEquals(requests.digest(), sha256(dcReceived.get(echo.id())), "SHA-256 of the requests at the far leg");
    assertArrayEquals(echoes.digest(), sha256(branchReceived.get(echo.id())), "SHA-256 of the echoes at the near leg");
    assertTrue(wan.branchMux[older].isUp() && wan.dcMux[older].isUp(), "the older one is left to close by itself");
  }
}
