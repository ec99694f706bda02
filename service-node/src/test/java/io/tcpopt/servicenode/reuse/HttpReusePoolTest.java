package io.tcpopt.servicenode.reuse;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The OneConnect settings at work: max-reuse, idle-timeout, max-size, max-age, source-mask; stale connections. */
class HttpReusePoolTest {
  @RegisterExtension final Closer closer = new Closer();

  private static RawHttp.Response get(InetSocketAddress front, InetAddress from, String path) throws IOException {
    try (Socket s = new Socket(front.getAddress(), front.getPort(), from, 0)) {
      s.setSoTimeout(20_000);
      s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: b\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      return RawHttp.read(s.getInputStream(), false);
    }
  }

  private static RawHttp.Response get(InetSocketAddress front, String path) throws IOException {
    return get(front, InetAddress.getLoopbackAddress(), path);
  }

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.sleep(10);
    }
  }

  private static void awaitClosed(ReuseFront front, String reason, int count) throws InterruptedException {
    await(() -> front.registry.get("tcpopt.http.reuse.connections.closed").tag("reason", reason).counter().count() == count,
        count + " connections closed for " + reason);
  }

  /** What a scripted server does with the n-th request of a connection: the bytes to answer, or null to close. */
  interface Script {
    byte[] answer(int connection, int request, String requestLine);
  }

  /** Reads request heads (and Content-Length bodies) and answers them as {@code script} says. */
  static RawBackend.Handler scripted(Script script) {
    return (s, connection) -> {
      InputStream in = s.getInputStream();
      OutputStream out = s.getOutputStream();
      for (int request = 1; ; request++) {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) >= 0) {
          head.write(c);
          byte[] h = head.toByteArray();
          int n = h.length;
          if (n >= 4 && h[n - 4] == '\r' && h[n - 3] == '\n' && h[n - 2] == '\r' && h[n - 1] == '\n') {
            break;
          }
        }
        if (c < 0) {
          return;
        }
        String text = head.toString(StandardCharsets.ISO_8859_1);
        int cl = text.toLowerCase().indexOf("content-length:");
        if (cl >= 0) {
          in.readNBytes(Integer.parseInt(text.substring(cl + 15, text.indexOf('\r', cl)).trim()));
        }
        byte[] answer = script.answer(connection, request, text.substring(0, text.indexOf('\r')));
        if (answer == null) {
          return;
        }
        out.write(answer);
        out.flush();
      }
    };
  }

  static byte[] ok(String body) {
    return ("HTTP/1.1 200 OK\r\nContent-Length: " + body.length() + "\r\n\r\n" + body).getBytes(StandardCharsets.ISO_8859_1);
  }

  @Test
  void aConnectionServesAtMostOnePlusMaxReuseRequests() throws Exception {
    HttpBackend backend = closer.add(new HttpBackend());
    ReuseFront front = closer.add(new ReuseFront(backend.address(), HttpReuseTest.profile("max-reuse: 2"), Duration.ofSeconds(5), 1));
    for (int i = 0; i < 9; i++) {
      assertArrayEquals(HttpBackend.content(i, 1000), get(front.address(), "/bytes?n=1000&seed=" + i).body());
    }
    assertEquals(3, backend.connections.size());
    awaitClosed(front, "max-reuse", 3); // the last release may run just after the client read its response
    assertEquals(6.0, front.metrics.reused.count());
  }

  @Test
  void idleConnectionsCloseAfterTheIdleTimeoutAndAfterMaxAge() throws Exception {
    HttpBackend backend = closer.add(new HttpBackend());
    ReuseFront front = closer.add(new ReuseFront(backend.address(), HttpReuseTest.profile("idle-timeout: 200ms"), Duration.ofSeconds(5), 1));
    get(front.address(), "/bytes?n=10");
    await(() -> front.idleConnections() == 1, "the connection back in the pool");
    await(() -> front.idleConnections() == 0, "the idle timeout");
    get(front.address(), "/bytes?n=10");
    assertEquals(2, backend.connections.size());
    awaitClosed(front, "idle-timeout", 1);

    ReuseFront aged = closer.add(new ReuseFront(backend.address(), HttpReuseTest.profile("max-age: 1s"), Duration.ofSeconds(5), 1));
    get(aged.address(), "/bytes?n=10");
    Thread.sleep(1100);
    get(aged.address(), "/bytes?n=10");
    assertEquals(4, backend.connections.size());
    awaitClosed(aged, "max-age", 1);
  }

  @Test
  void thePoolHoldsAtMostMaxSizeIdleConnections() throws Exception {
    CyclicBarrier together = new CyclicBarrier(4);
    RawBackend backend = closer.add(new RawBackend(scripted((connection, request, line) -> {
      try {
        together.await(10, TimeUnit.SECONDS); // four requests in flight at once: four connections
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
      return ok("c" + connection);
    })));
    ReuseFront front = closer.add(new ReuseFront(backend.address(), HttpReuseTest.profile("max-size: 1"), Duration.ofSeconds(5), 1));
    ExecutorService clients = Executors.newFixedThreadPool(4);
    try {
      List<Future<RawHttp.Response>> f = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        f.add(clients.submit(() -> get(front.address(), "/")));
      }
      for (Future<RawHttp.Response> r : f) {
        assertEquals(200, r.get(20, TimeUnit.SECONDS).status());
      }
    } finally {
      clients.shutdownNow();
    }
    backend.rethrow();
    assertEquals(4, backend.connections.get());
    awaitClosed(front, "pool-full", 3);
    assertEquals(1, front.idleConnections());
  }

  @Test
  void theSourceMaskDecidesWhichClientsShareConnections() throws Exception {
    HttpBackend backend = closer.add(new HttpBackend());
    InetAddress one = InetAddress.getByName("127.0.0.1");
    InetAddress two = InetAddress.getByName("127.0.0.2");
    ReuseFront perClient = closer.add(new ReuseFront(backend.address(), HttpReuseTest.profile("source-mask: 255.255.255.255"), Duration.ofSeconds(5), 1));
    for (InetAddress from : List.of(one, one, two, two, one)) {
      assertEquals(200, get(perClient.address(), from, "/bytes?n=10").status());
    }
    assertEquals(2, backend.connections.size(), "one connection per client address");
    ReuseFront shared = closer.add(new ReuseFront(backend.address(), HttpReuseTest.profile("source-mask: 0.0.0.0"), Duration.ofSeconds(5), 1));
    for (InetAddress from : List.of(one, two, one, two)) {
      assertEquals(200, get(shared.address(), from, "/bytes?n=10").status());
    }
    assertEquals(3, backend.connections.size(), "every client shares one connection");
  }

  @Test
  void aPooledConnectionClosedUnderARequestIsRetriedWhenIdempotent() throws Exception {
    // Connection 1 answers its first request, then closes on the next one unanswered; later connections answer all.
    RawBackend backend = closer.add(new RawBackend(scripted((connection, request, line) ->
        connection == 1 && request == 2 ? null : ok(line))));
    ReuseFront front = closer.add(new ReuseFront(backend.address(), HttpReuseTest.profile(""), Duration.ofSeconds(5), 1));
    assertEquals("GET /first HTTP/1.1", new String(get(front.address(), "/first").body(), StandardCharsets.US_ASCII));
    assertEquals("GET /second HTTP/1.1", new String(get(front.address(), "/second").body(), StandardCharsets.US_ASCII));
    assertEquals(1.0, front.metrics.retries.count());
    assertEquals(2, backend.connections.get());

    // The same for a POST: not idempotent, so the client sees a reset rather than a request sent twice.
    RawBackend once = closer.add(new RawBackend(scripted((connection, request, line) -> connection == 1 && request == 2 ? null : ok(line))));
    ReuseFront front2 = closer.add(new ReuseFront(once.address(), HttpReuseTest.profile(""), Duration.ofSeconds(5), 1));
    get(front2.address(), "/first");
    try (Socket s = new Socket(front2.address().getAddress(), front2.address().getPort())) {
      s.setSoTimeout(20_000);
      s.getOutputStream().write("POST /pay HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc".getBytes(StandardCharsets.US_ASCII));
      assertThrows(IOException.class, () -> RawHttp.read(s.getInputStream(), false));
    }
    assertEquals(0.0, front2.metrics.retries.count());
    await(() -> !front2.resets.isEmpty(), "the flow's close reason"); // the client may see the reset before the flow record closes
    assertEquals(List.of("server closed the connection without a response"), List.copyOf(front2.resets));
  }

  @Test
  void anIdleConnectionTheServerClosedIsNotReused() throws Exception {
    // A server that closes every connection after one answer, without saying so.
    RawBackend oneShot = closer.add(new RawBackend((s, connection) -> {
      InputStream in = s.getInputStream();
      byte[] buf = new byte[4096];
      int n = in.read(buf);
      assertTrue(n > 0);
      s.getOutputStream().write(ok("conn " + connection));
      s.getOutputStream().flush();
    }));
    ReuseFront front = closer.add(new ReuseFront(oneShot.address(), HttpReuseTest.profile(""), Duration.ofSeconds(5), 1));
    assertEquals("conn 1", new String(get(front.address(), "/").body(), StandardCharsets.US_ASCII));
    await(() -> front.idleConnections() == 0, "the pool noticing the server's close");
    assertEquals("conn 2", new String(get(front.address(), "/").body(), StandardCharsets.US_ASCII));
    awaitClosed(front, "server-closed", 2);
    assertEquals(0.0, front.metrics.retries.count());
    oneShot.rethrow();
  }

  @Test
  void responsesWithTrailersAndCloseAreFramedExactly() throws Exception {
    String chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Digest: abc\r\nX-More: 1\r\n\r\n";
    RawBackend backend = closer.add(new RawBackend(scripted((connection, request, line) -> line.contains("/close")
        ? "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 4\r\n\r\nbye!".getBytes(StandardCharsets.US_ASCII)
        : chunked.getBytes(StandardCharsets.US_ASCII))));
    ReuseFront front = closer.add(new ReuseFront(backend.address(), HttpReuseTest.profile(""), Duration.ofSeconds(5), 1));
    for (int i = 0; i < 3; i++) {
      try (Socket s = new Socket(front.address().getAddress(), front.address().getPort())) {
        s.setSoTimeout(20_000);
        s.getOutputStream().write("GET /t HTTP/1.1\r\n\r\nGET /close HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        s.shutdownOutput();
        byte[] all = s.getInputStream().readAllBytes();
        assertEquals(chunked + "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 4\r\n\r\nbye!",
            new String(all, StandardCharsets.US_ASCII), "the raw bytes of both responses, then the end");
      }
    }
    backend.rethrow();
    assertEquals(3, backend.connections.get(), "each flow's close request ends its connection");
    assertEquals(3.0, front.metrics.reused.count(), "the close request rode the connection of the chunked one");
  }
}
