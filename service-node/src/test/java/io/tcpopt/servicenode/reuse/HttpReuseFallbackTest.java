package io.tcpopt.servicenode.reuse;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.common.profile.HttpReuseProfile;
import io.tcpopt.servicenode.flow.HttpReuseFigures;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What reuse cannot frame safely becomes a plain relay over a connection of the flow's own: every
 * byte both ways, half-close mirrored, counted by reason.
 */
class HttpReuseFallbackTest {
  @RegisterExtension final Closer closer = new Closer();

  /** Sends {@code bytes}, half-closes, and returns everything read until EOF. */
  private static byte[] exchange(InetSocketAddress front, byte[] bytes) throws Exception {
    try (Socket s = new Socket(front.getAddress(), front.getPort())) {
      s.setSoTimeout(20_000);
      s.getOutputStream().write(bytes);
      s.shutdownOutput();
      return s.getInputStream().readAllBytes();
    }
  }

  private static byte[] concat(String head, byte[] tail) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(head.getBytes(StandardCharsets.ISO_8859_1));
    out.writeBytes(tail);
    return out.toByteArray();
  }

  private static byte[] random(int n) {
    byte[] b = new byte[n];
    new Random(n).nextBytes(b);
    return b;
  }

  @Test
  void streamsReuseCannotFrameAreRelayedByteForByte() throws Exception {
    RawBackend echo = closer.add(new RawBackend(RawBackend::echo));
    ReuseFront front = closer.add(new ReuseFront(echo.address(), HttpReuseProfile.oneconnect(), Duration.ofSeconds(5)));
    byte[] tls = random(300_000);
    tls[0] = 0x16; // a TLS record type: not a request line
    byte[][] cases = {
      tls,
      concat("GET /chat HTTP/1.1\r\nHost: b\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n", random(100_000)),
      concat("CONNECT db.example:5432 HTTP/1.1\r\nHost: db.example:5432\r\n\r\n", random(70_000)),
      concat("POST /x HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", random(10_000)),
      "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII),
      "GET /partial HTTP/1.1\r\nHost: b\r\n".getBytes(StandardCharsets.US_ASCII),
    };
    for (byte[] c : cases) {
      byte[] back = exchange(front.address(), c);
      assertEquals(RawHttp.sha256(c), RawHttp.sha256(back), "case starting " + new String(c, 0, 12, StandardCharsets.ISO_8859_1));
    }
    echo.rethrow();
    assertEquals(cases.length, echo.connections.get(), "each fallback flow had a connection of its own");
    assertEquals(List.of("not-http1", "upgrade", "connect", "malformed", "not-http1", "incomplete"),
        front.stats().stream().map(HttpReuseFigures::fallback).toList());
    assertEquals(2.0, front.registry.get("tcpopt.http.reuse.fallbacks").tag("reason", "not-http1").counter().count());
    assertEquals(1.0, front.registry.get("tcpopt.http.reuse.fallbacks").tag("reason", "upgrade").counter().count());
    assertEquals(0, front.idleConnections(), "fallback connections never enter the pool");
    assertEquals(List.of(), List.copyOf(front.resets));
  }

  @Test
  void aServerThatSpeaksFirstGetsAPlainRelayAfterTheFirstRequestTimeout() throws Exception {
    RawBackend banner = closer.add(new RawBackend((s, n) -> {
      s.getOutputStream().write("220 smtp.example ESMTP\r\n".getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      RawBackend.echo(s, n);
    }));
    ReuseFront front = closer.add(new ReuseFront(banner.address(), HttpReuseProfile.oneconnect(), Duration.ofMillis(200)));
    try (Socket s = new Socket(front.address().getAddress(), front.address().getPort())) {
      s.setSoTimeout(20_000);
      InputStream in = s.getInputStream();
      byte[] line = in.readNBytes(24);
      assertEquals("220 smtp.example ESMTP\r\n", new String(line, StandardCharsets.US_ASCII));
      s.getOutputStream().write("EHLO me\r\n".getBytes(StandardCharsets.US_ASCII));
      s.shutdownOutput();
      assertArrayEquals("EHLO me\r\n".getBytes(StandardCharsets.US_ASCII), in.readAllBytes());
    }
    banner.rethrow();
    assertEquals("no-request", front.stats().get(0).fallback());
  }

  @Test
  void http10WithoutKeepAliveIsServedAndEndsTheFlowAsTheServerWould() throws Exception {
    HttpBackend backend = closer.add(new HttpBackend());
    ReuseFront front = closer.add(new ReuseFront(backend.address(), HttpReuseProfile.oneconnect(), Duration.ofSeconds(5), 1));
    for (int i = 0; i < 3; i++) {
      try (Socket s = new Socket(front.address().getAddress(), front.address().getPort())) {
        s.setSoTimeout(20_000);
        s.getOutputStream().write(("GET /bytes?n=20000&seed=" + i + " HTTP/1.0\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        RawHttp.Response r = RawHttp.read(s.getInputStream(), false);
        assertArrayEquals(HttpBackend.content(i, 20_000), r.body());
        assertEquals(-1, s.getInputStream().read(), "the client sees the end after its response");
      }
    }
    // HTTP/1.0 with an explicit keep-alive is reusable.
    for (int i = 0; i < 3; i++) {
      try (Socket s = new Socket(front.address().getAddress(), front.address().getPort())) {
        s.setSoTimeout(20_000);
        s.getOutputStream().write(("GET /bytes?n=100&seed=" + i + " HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        assertArrayEquals(HttpBackend.content(i, 100), RawHttp.read(s.getInputStream(), false).body());
      }
    }
    backend.rethrow();
    assertEquals(4, backend.connections.size(), "a connection per HTTP/1.0 close request, then one shared by the keep-alive ones");
    assertTrue(front.stats().stream().allMatch(st -> st.fallback() == null && st.requests() == 1));
  }
}
