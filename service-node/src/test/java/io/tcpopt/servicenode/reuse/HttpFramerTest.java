package io.tcpopt.servicenode.reuse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tcpopt.servicenode.reuse.HttpFramer.Body;
import io.tcpopt.servicenode.reuse.HttpFramer.Phase;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class HttpFramerTest {
  /** The lengths of the complete messages found in {@code text} fed in pieces of {@code piece} bytes; -1 marks INVALID. */
  private static List<Integer> frame(HttpFramer f, String text, int piece, List<String> methods) {
    ByteBuf buf = Unpooled.copiedBuffer(text, StandardCharsets.ISO_8859_1);
    List<Integer> out = new ArrayList<>();
    int messageStart = 0;
    int pos = 0;
    int m = 0;
    if (methods != null) {
      f.expectResponseTo(methods.get(0));
    }
    try {
      while (pos < buf.readableBytes()) {
        int end = Math.min(buf.readableBytes(), pos + piece);
        while (pos < end) {
          int n = f.advance(buf, pos, end - pos);
          pos += n;
          if (f.phase() == Phase.INVALID) {
            out.add(-1);
            return out;
          }
          if (f.phase() == Phase.DONE) {
            out.add(pos - messageStart);
            messageStart = pos;
            boolean interim = f.head().interim();
            f.next();
            if (methods != null && !interim && ++m < methods.size()) {
              f.expectResponseTo(methods.get(m));
            }
          } else if (n == 0) {
            throw new AssertionError("no progress in phase " + f.phase());
          }
        }
      }
    } finally {
      buf.release();
    }
    return out;
  }

  private static final String PIPELINE =
      "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
          + "POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
          + "PUT /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\nwiki\r\n0\r\nX-Sum: 1\r\n\r\n"
          + "\r\nDELETE /d HTTP/1.0\r\nConnection: keep-alive\r\n\r\n";

  @Test
  void pipelinedRequestsAreFramedTheSameWhateverTheReadSizes() {
    List<Integer> whole = frame(HttpFramer.requests(), PIPELINE, PIPELINE.length(), null);
    assertEquals(List.of(28, 53, 77, 48), whole);
    for (int piece : new int[] {1, 2, 3, 7, 16}) {
      assertEquals(whole, frame(HttpFramer.requests(), PIPELINE, piece, null), "piece " + piece);
    }
  }

  @Test
  void headsCarryTheFactsThatFrameAndReuse() {
    HttpFramer f = HttpFramer.requests();
    ByteBuf buf = Unpooled.copiedBuffer("DELETE /d HTTP/1.0\r\nConnection: Keep-Alive\r\nUpgrade: h2c\r\nContent-Length: 0\r\n\r\n",
        StandardCharsets.ISO_8859_1);
    f.advance(buf, 0, buf.readableBytes());
    buf.release();
    assertEquals(Phase.DONE, f.phase());
    HttpHead h = f.head();
    assertEquals("DELETE", h.method());
    assertEquals(0, h.minorVersion());
    assertTrue(h.keepAlive());
    assertTrue(h.persistent());
    assertTrue(h.upgrade());
    assertEquals(0, h.contentLength());
  }

  @Test
  void responsesFollowTheRequestMethodAndStatus() {
    String responses =
        "HTTP/1.1 100 Continue\r\n\r\n"
            + "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc"
            + "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n" // to HEAD: no body
            + "HTTP/1.1 204 No Content\r\n\r\n"
            + "HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n"
            + "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
            + "HTTP/1.0 200 OK\r\n\r\nuntil close...";
    List<String> methods = List.of("POST", "HEAD", "GET", "GET", "GET", "GET");
    List<Integer> whole = frame(HttpFramer.responses(), responses, responses.length(), methods);
    assertEquals(List.of(25, 41, 41, 27, 49, 66), whole);
    for (int piece : new int[] {1, 5, 13}) {
      assertEquals(whole, frame(HttpFramer.responses(), responses, piece, methods), "piece " + piece);
    }
  }

  @Test
  void responsesReadUntilCloseAreNotReusable() {
    HttpFramer f = HttpFramer.responses();
    f.expectResponseTo("GET");
    ByteBuf buf = Unpooled.copiedBuffer("HTTP/1.1 200 OK\r\nConnection: keep-alive\r\n\r\nbody", StandardCharsets.ISO_8859_1);
    int n = f.advance(buf, 0, buf.readableBytes());
    assertEquals(Phase.BODY, f.phase());
    assertEquals(Body.UNTIL_CLOSE, f.body());
    assertFalse(f.framingReusable());
    assertEquals(4, f.advance(buf, n, buf.readableBytes() - n));
    buf.release();

    HttpFramer both = HttpFramer.responses();
    both.expectResponseTo("GET");
    ByteBuf b2 = Unpooled.copiedBuffer("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", StandardCharsets.ISO_8859_1);
    both.advance(b2, 0, b2.readableBytes());
    b2.release();
    assertEquals(Body.CHUNKED, both.body());
    assertFalse(both.framingReusable(), "Transfer-Encoding wins, but the connection is not trusted again");

    HttpFramer upgrade = HttpFramer.responses();
    upgrade.expectResponseTo("GET");
    ByteBuf b3 = Unpooled.copiedBuffer("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n", StandardCharsets.ISO_8859_1);
    upgrade.advance(b3, 0, b3.readableBytes());
    b3.release();
    assertEquals(Body.UNTIL_CLOSE, upgrade.body());
  }

  private static String invalid(HttpFramer f, byte[] bytes, boolean[] notHttp1) {
    ByteBuf buf = Unpooled.wrappedBuffer(bytes);
    int pos = 0;
    while (pos < bytes.length && f.phase() != Phase.INVALID) {
      if (f.phase() == Phase.DONE) {
        f.next();
      }
      pos += f.advance(buf, pos, 1);
    }
    buf.release();
    if (f.phase() != Phase.INVALID) {
      return null;
    }
    notHttp1[0] = f.error().notHttp1();
    return f.error().getMessage() + "@" + pos;
  }

  @Test
  void streamsThatAreNotHttp1AreKnownAtTheFirstWrongByte() {
    boolean[] notHttp1 = {false};
    byte[] clientHello = {0x16, 0x03, 0x01, 0x02, 0x00, 0x01};
    assertEquals("not an HTTP/1.x request@1", invalid(HttpFramer.requests(), clientHello, notHttp1));
    assertTrue(notHttp1[0]);
    byte[] h2 = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    assertEquals("not an HTTP/1.x request@12", invalid(HttpFramer.requests(), h2, notHttp1));
    assertTrue(notHttp1[0]);
    byte[] smtp = "220 mail.example.com ESMTP\r\n".getBytes(StandardCharsets.US_ASCII);
    assertEquals("not an HTTP/1.x response@1", invalid(HttpFramer.responses(), smtp, notHttp1));
    assertEquals("not an HTTP/1.x request@15",
        invalid(HttpFramer.requests(), "GET / HTTP/1.1 extra\r\n\r\n".getBytes(StandardCharsets.US_ASCII), notHttp1));
  }

  @Test
  void ambiguousFramingIsRefusedNotGuessed() {
    String[][] cases = {
      {"POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", "both Transfer-Encoding and Content-Length"},
      {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked, identity\r\n\r\n", "a request Transfer-Encoding other than chunked"},
      {"POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", "conflicting Content-Length values"},
      {"POST / HTTP/1.1\r\nContent-Length: +5\r\n\r\n", "bad Content-Length"},
      {"GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n", "obsolete line folding"},
      {"GET / HTTP/1.1\r\nHost : x\r\n\r\n", "bad header field name"},
      {"GET / HTTP/1.1\r\nHost: x\n\r\n", "bare LF"},
      {"GET / HTTP/1.1\r\nHost: x\r\r\n", "bare CR"},
      {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffff\r\n", "bad chunk size"},
      {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcd\r\n", "chunk data longer than its size"},
      {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n folded: x\r\n\r\n", "bad trailer field"},
    };
    for (String[] c : cases) {
      boolean[] notHttp1 = {true};
      String got = invalid(HttpFramer.requests(), c[0].getBytes(StandardCharsets.ISO_8859_1), notHttp1);
      assertTrue(got != null && got.startsWith(c[1] + "@"), c[0] + " -> " + got);
      assertFalse(notHttp1[0], c[0]);
    }
    boolean[] ignored = {false};
    assertEquals("head larger than 64 bytes@64",
        invalid(HttpFramer.requests(64), ("GET / HTTP/1.1\r\nX: " + "a".repeat(100) + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII), ignored));
  }

  @Test
  void randomMessageSequencesAreFramedAtTheirExactBoundaries() {
    Random r = new Random(7);
    for (int round = 0; round < 200; round++) {
      StringBuilder text = new StringBuilder();
      List<Integer> lengths = new ArrayList<>();
      int messages = 1 + r.nextInt(6);
      for (int m = 0; m < messages; m++) {
        String one;
        if (r.nextBoolean()) {
          String body = "b".repeat(r.nextInt(3000));
          one = "POST /" + m + " HTTP/1.1\r\nHost: h\r\nContent-Length: " + body.length() + "\r\n\r\n" + body;
        } else {
          StringBuilder chunks = new StringBuilder();
          for (int c = r.nextInt(4); c > 0; c--) {
            int size = 1 + r.nextInt(2000);
            chunks.append(Integer.toHexString(size)).append(r.nextBoolean() ? "" : ";x=y").append("\r\n").append("c".repeat(size)).append("\r\n");
          }
          one = "PUT /" + m + " HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks + "0\r\n" + (r.nextBoolean() ? "T: 1\r\n" : "") + "\r\n";
        }
        text.append(one);
        lengths.add(one.length());
      }
      int piece = 1 + r.nextInt(700);
      assertEquals(lengths, frame(HttpFramer.requests(), text.toString(), piece, null), "round " + round + " piece " + piece);
    }
  }
}
