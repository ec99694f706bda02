package io.tcpopt.common.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link BoundedHttpServer} on loopback, driven by raw sockets so every byte and close is visible. */
@Timeout(30)
class BoundedHttpServerTest {
  private static final HttpLimits FAST = HttpLimits.DEFAULT
      .withTimeouts(Duration.ofMillis(400), Duration.ofMillis(600), Duration.ofSeconds(5)).withMaxBodyBytes(1024);

  private final ExecutorService executor = Executors.newFixedThreadPool(2);
  private BoundedHttpServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
    executor.shutdownNow();
  }

  private void start(HttpLimits limits, HttpCallHandler handler) {
    server = BoundedHttpServer.start("test-http", new InetSocketAddress("127.0.0.1", 0), limits, null, handler, executor);
  }

  private static final HttpCallHandler ECHO = call -> {
    call.setHeader("X-Path", call.path()).addHeader("Set-Cookie", "a=1").addHeader("Set-Cookie", "b=2");
    call.respond(200, "text/plain; charset=utf-8",
        call.method() + " " + call.path() + " q=" + call.rawQuery() + " h=" + call.header("X-Test") + " body=" + new String(call.body(), StandardCharsets.UTF_8));
  };

  private Socket connect() throws IOException {
    Socket s = new Socket();
    s.connect(server.address(), 2000);
    s.setSoTimeout(5000);
    return s;
  }

  @Test
  void answersRequestsOnOneKeepAliveConnectionAndHeadWithoutBody() throws Exception {
    start(FAST, ECHO);
    try (Socket s = connect()) {
      OutputStream out = s.getOutputStream();
      out.write("GET /a%20b?x=1%202 HTTP/1.1\r\nHost: h\r\nX-Test: t\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      String first = response(s.getInputStream());
      assertTrue(first.startsWith("HTTP/1.1 200 OK\r\n"), first);
      assertTrue(first.contains("x-path: /a b") || first.contains("X-Path: /a b"), first);
      assertTrue(first.endsWith("GET /a b q=x=1%202 h=t body="), first);
      assertEquals(2, first.split("(?i)set-cookie:").length - 1, first);
      out.write("POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello".getBytes(StandardCharsets.US_ASCII));
      assertTrue(response(s.getInputStream()).endsWith("POST /p q=null h=null body=hello"));
      out.write("HEAD /h HTTP/1.1\r\nHost: h\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      String head = head(s.getInputStream());
      assertTrue(head.startsWith("HTTP/1.1 200 OK\r\n") && head.contains("content-length: 27"), head);
      out.write("GET /after-head HTTP/1.1\r\nHost: h\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      assertTrue(response(s.getInputStream()).endsWith("GET /after-head q=null h=null body="), "no body after the HEAD answer");
    }
  }

  @Test
  void pipelinedRequestsAreAnsweredInOrder() throws Exception {
    start(FAST, ECHO);
    try (Socket s = connect()) {
      s.getOutputStream().write(("GET /1 HTTP/1.1\r\nHost: h\r\n\r\nGET /2 HTTP/1.1\r\nHost: h\r\n\r\nGET /3 HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      InputStream in = s.getInputStream();
      assertTrue(response(in).endsWith("GET /1 q=null h=null body="));
      assertTrue(response(in).endsWith("GET /2 q=null h=null body="));
      assertTrue(response(in).endsWith("GET /3 q=null h=null body="));
      assertEquals(-1, in.read(), "closed after Connection: close");
    }
  }

  @Test
  void silentConnectionIsClosedByTheRequestTimeout() throws Exception {
    start(FAST, ECHO);
    try (Socket s = connect()) {
      long t0 = System.nanoTime();
      assertEquals(-1, s.getInputStream().read());
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertTrue(ms >= 300 && ms < 3000, "closed after " + ms + " ms");
    }
    awaitOpen(0);
  }

  @Test
  void tricklingClientIsClosedByTheRequestTimeoutAlthoughItSends() throws Exception {
    start(FAST, ECHO);
    try (Socket s = connect()) {
      s.setSoTimeout(100);
      byte[] head = "GET / HTTP/1.1\r\nX-Long: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa".getBytes(StandardCharsets.US_ASCII);
      long t0 = System.nanoTime();
      boolean closed = false;
      for (int i = 0; i < head.length && !closed; i++) {
        try {
          s.getOutputStream().write(head[i]);
          closed = s.getInputStream().read() == -1;
        } catch (SocketTimeoutException e) {
          // still open: keep trickling
        } catch (IOException e) {
          closed = true;
        }
      }
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertTrue(closed && ms < 3000, "closed " + closed + " after " + ms + " ms");
    }
  }

  @Test
  void idleKeepAliveConnectionIsClosedByTheIdleTimeout() throws Exception {
    start(FAST, ECHO);
    try (Socket s = connect()) {
      s.getOutputStream().write("GET / HTTP/1.1\r\nHost: h\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      response(s.getInputStream());
      long t0 = System.nanoTime();
      assertEquals(-1, s.getInputStream().read());
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertTrue(ms >= 500 && ms < 3000, "closed after " + ms + " ms");
    }
  }

  @Test
  void connectionsOverTheCapAreClosedAtOnceAndTheCapFreesAgain() throws Exception {
    start(FAST.withMaxConnections(3).withTimeouts(Duration.ofSeconds(20), Duration.ofSeconds(20), Duration.ofSeconds(5)), ECHO);
    List<Socket> held = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        held.add(connect());
      }
      awaitOpen(3);
      try (Socket over = connect()) {
        assertEquals(-1, over.getInputStream().read(), "over the cap: closed at once");
      }
      assertEquals(1, server.refusedConnections());
      held.remove(0).close();
      awaitOpen(2);
      try (Socket again = connect()) {
        again.getOutputStream().write("GET / HTTP/1.1\r\nHost: h\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        assertTrue(response(again.getInputStream()).startsWith("HTTP/1.1 200 OK"));
      }
    } finally {
      for (Socket s : held) {
        s.close();
      }
    }
  }

  @Test
  void oversizedBodyGets413AndOversizedHeadGets431() throws Exception {
    start(FAST, ECHO);
    try (Socket s = connect()) {
      s.getOutputStream().write("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2000\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      String r = response(s.getInputStream());
      assertTrue(r.startsWith("HTTP/1.1 413 "), r);
    }
    try (Socket s = connect()) {
      s.getOutputStream().write(("GET / HTTP/1.1\r\nHost: h\r\nX-Big: " + "a".repeat(10_000) + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      String r = response(s.getInputStream());
      assertTrue(r.startsWith("HTTP/1.1 431 "), r);
      assertEquals(-1, s.getInputStream().read());
    }
    try (Socket s = connect()) {
      s.getOutputStream().write("GET /%zz HTTP/1.1\r\nHost: h\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      assertTrue(response(s.getInputStream()).startsWith("HTTP/1.1 400 "));
    }
  }

  @Test
  void failingOrSilentHandlerGives500AndTheConnectionServesOn() throws Exception {
    start(FAST, call -> {
      if (call.path().equals("/throw")) {
        throw new IllegalStateException("boom");
      }
      if (call.path().equals("/ok")) {
        call.respond(204, null, new byte[0]);
      }
    });
    try (Socket s = connect()) {
      OutputStream out = s.getOutputStream();
      out.write("GET /throw HTTP/1.1\r\nHost: h\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      assertTrue(response(s.getInputStream()).startsWith("HTTP/1.1 500 "));
      out.write("GET /nothing HTTP/1.1\r\nHost: h\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      assertTrue(response(s.getInputStream()).startsWith("HTTP/1.1 500 "));
      out.write("GET /ok HTTP/1.1\r\nHost: h\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      assertTrue(response(s.getInputStream()).startsWith("HTTP/1.1 204 "));
    }
  }

  private void awaitOpen(int n) throws InterruptedException {
    for (int i = 0; i < 200 && server.openConnections() != n; i++) {
      Thread.sleep(10);
    }
    assertEquals(n, server.openConnections());
  }

  /** One response: its head, then Content-Length bytes of body. */
  private static String response(InputStream in) throws IOException {
    String h = head(in);
    int length = 0;
    for (String line : h.split("\r\n")) {
      if (line.toLowerCase().startsWith("content-length:")) {
        length = Integer.parseInt(line.substring(15).trim());
      }
    }
    return h + new String(in.readNBytes(length), StandardCharsets.UTF_8);
  }

  private static String head(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("closed after " + head.toString(StandardCharsets.US_ASCII));
      }
      head.write(b);
    }
    return head.toString(StandardCharsets.US_ASCII);
  }
}
