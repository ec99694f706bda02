package io.tcpopt.servicenode.reuse;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tcpopt.common.config.ConfigTree;
import io.tcpopt.common.profile.HttpReuseProfile;
import io.tcpopt.common.profile.ProfileDefinition;
import io.tcpopt.common.testing.NamespacePrivileges;
import io.tcpopt.servicenode.flow.HttpReuseFigures;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * HTTP server-connection reuse against a real HTTP/1.1 server on loopback: many clients, each on a
 * connection of its own, get their own responses byte for byte over few server connections.
 */
class HttpReuseTest {
  @RegisterExtension final Closer closer = new Closer();

  static HttpReuseProfile profile(String yaml) {
    if (yaml.isEmpty()) {
      return HttpReuseProfile.oneconnect();
    }
    ProfileDefinition d = HttpReuseProfile.KIND.parse("test", ConfigTree.parse(yaml, "test"), (p, r) -> {
      throw new AssertionError(p + ": " + r);
    });
    return HttpReuseProfile.KIND.resolve(Map.of("test", d), "", (p, r) -> {
      throw new AssertionError(p + ": " + r);
    }).get("test");
  }

  private static byte[] get(InetSocketAddress front, String path, String extraHeaders) throws Exception {
    try (Socket s = new Socket(front.getAddress(), front.getPort())) {
      s.setSoTimeout(20_000);
      s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: backend\r\n" + extraHeaders + "\r\n").getBytes(StandardCharsets.US_ASCII));
      RawHttp.Response r = RawHttp.read(s.getInputStream(), false);
      assertEquals(200, r.status());
      return r.body();
    }
  }

  @Test
  void concurrentClientsGetTheirOwnResponsesOverFewServerConnections() throws Exception {
    HttpBackend backend = closer.add(new HttpBackend());
    ReuseFront front = closer.add(new ReuseFront(backend.address(), profile(""), Duration.ofSeconds(5)));
    int clients = 12;
    int requests = 240;
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    try {
      List<Future<String>> done = new ArrayList<>();
      for (int i = 0; i < requests; i++) {
        int seed = i;
        int size = (i * 7919) % (256 << 10);
        boolean chunked = i % 3 == 0;
        done.add(pool.submit(() -> {
          byte[] body = get(front.address(), "/bytes?n=" + size + "&seed=" + seed + (chunked ? "&chunked=1" : ""), "");
          assertEquals(RawHttp.sha256(HttpBackend.content(seed, size)), RawHttp.sha256(body), "request " + seed);
          return "ok";
        }));
      }
      for (Future<String> f : done) {
        assertEquals("ok", f.get(60, TimeUnit.SECONDS));
      }
    } finally {
      pool.shutdownNow();
    }
    backend.rethrow();
    assertEquals(requests, backend.exchanges.get());
    assertTrue(backend.connections.size() <= 2 * clients,
        "server connections: " + backend.connections.size() + " for " + requests + " requests from " + clients + " concurrent clients");
    assertEquals(requests, (long) front.metrics.requests.count());
    assertEquals(requests - backend.connections.size(), (long) front.metrics.reused.count());
    assertEquals(backend.connections.size(), (long) front.metrics.opened.count());
    assertEquals(List.of(), List.copyOf(front.resets));
    for (HttpReuseFigures s : front.stats()) {
      assertEquals(1, s.requests());
      assertTrue(s.serverConnection().matches("#\\d+ 127\\.0\\.0\\.1:\\d+->127\\.0\\.0\\.1:" + backend.address().getPort()), s.serverConnection());
      assertEquals(null, s.fallback());
    }
  }

  @Test
  void clientsThatCloseAfterEachRequestStillShareFewServerConnections() throws Exception {
    HttpBackend backend = closer.add(new HttpBackend());
    ReuseFront front = closer.add(new ReuseFront(backend.address(), profile(""), Duration.ofSeconds(5)));
    int clients = 6;
    int requests = 60;
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    try {
      List<Future<String>> done = new ArrayList<>();
      for (int i = 0; i < requests; i++) {
        int seed = 1000 + i;
        done.add(pool.submit(() -> {
          try (Socket s = new Socket(front.address().getAddress(), front.address().getPort())) {
            s.setSoTimeout(20_000);
            s.getOutputStream().write(("GET /bytes?n=40000&seed=" + seed + " HTTP/1.1\r\nHost: b\r\nconnection:  Close \r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            assertArrayEquals(HttpBackend.content(seed, 40_000), RawHttp.read(in, false).body(), "request " + seed);
            assertEquals(-1, in.read(), "the client's Connection: close still ends its flow after the response");
          }
          return "ok";
        }));
      }
      for (Future<String> f : done) {
        assertEquals("ok", f.get(60, TimeUnit.SECONDS));
      }
    } finally {
      pool.shutdownNow();
    }
    backend.rethrow();
    assertEquals(requests, backend.exchanges.get());
    assertTrue(backend.connections.size() <= 2 * clients,
        "Connection: close renamed on its way (OneConnect transformation): " + backend.connections.size() + " server connections");
    assertEquals(requests - backend.connections.size(), (long) front.metrics.reused.count());
  }

  /**
   * Client-address transparency with reuse: each flow's server connections come from its client's
   * own address (here 127.0.0.2-4, loopback) and are pooled for that client alone, even under the
   * all-sharing mask 0.0.0.0; every request reaches the server from its own client, and each
   * client's requests still share few connections.
   */
  @Test
  void clientsKeepingTheirAddressesReuseConnectionsOfTheirOwnOnly() throws Exception {
    assumeTrue(NamespacePrivileges.canCreateNamespaces(), "IP_TRANSPARENT needs root: " + NamespacePrivileges.reason());
    HttpBackend backend = closer.add(new HttpBackend());
    ReuseFront front = closer.add(new ReuseFront(backend.address(), profile("source-mask: 0.0.0.0"), Duration.ofSeconds(5), 1, true));
    List<InetAddress> clients = List.of(InetAddress.getByName("127.0.0.2"), InetAddress.getByName("127.0.0.3"), InetAddress.getByName("127.0.0.4"));
    int perClient = 30;
    ExecutorService pool = Executors.newFixedThreadPool(2 * clients.size());
    try {
      List<Future<String>> done = new ArrayList<>();
      for (int i = 0; i < perClient * clients.size(); i++) {
        int seed = 5000 + i;
        InetAddress from = clients.get(i % clients.size());
        done.add(pool.submit(() -> {
          try (Socket s = new Socket(front.address().getAddress(), front.address().getPort(), from, 0)) {
            s.setSoTimeout(20_000);
            s.getOutputStream().write(("GET /bytes?n=30000&seed=" + seed + " HTTP/1.1\r\nHost: b\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
            assertEquals(RawHttp.sha256(HttpBackend.content(seed, 30_000)), RawHttp.sha256(RawHttp.read(s.getInputStream(), false).body()));
          }
          return "ok";
        }));
      }
      for (Future<String> f : done) {
        assertEquals("ok", f.get(60, TimeUnit.SECONDS));
      }
    } finally {
      pool.shutdownNow();
    }
    backend.rethrow();
    int requests = perClient * clients.size();
    assertEquals(requests, backend.exchanges.get());
    for (int i = 0; i < requests; i++) {
      InetSocketAddress servedOn = backend.servedOn.get("/bytes?n=30000&seed=" + (5000 + i));
      assertEquals(clients.get(i % clients.size()), servedOn.getAddress(), "request " + i + " reached the server from its own client");
    }
    for (InetAddress client : clients) {
      long own = backend.connections.stream().filter(c -> c.getAddress().equals(client)).count();
      // at most one per request of that client in flight (six requests in flight, all clients together)
      assertTrue(own >= 1 && own <= 6, client + ": " + own + " server connections for " + perClient + " requests");
    }
    assertEquals(requests - backend.connections.size(), (long) front.metrics.reused.count());
    assertEquals(List.of(), List.copyOf(front.resets));
  }

  @Test
  void pipelinedRequestsAreAnsweredInOrderOnOneClientConnection() throws Exception {
    HttpBackend backend = closer.add(new HttpBackend());
    ReuseFront front = closer.add(new ReuseFront(backend.address(), profile(""), Duration.ofSeconds(5)));
    byte[] upload = HttpBackend.content(99, 100_000);
    ByteArrayOutputStream requests = new ByteArrayOutputStream();
    requests.write("GET /bytes?n=70000&seed=1 HTTP/1.1\r\nHost: b\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    requests.write("HEAD /bytes?n=5000&seed=2 HTTP/1.1\r\nHost: b\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    requests.write("POST /echo?chunked=1 HTTP/1.1\r\nHost: b\r\nTransfer-Encoding: chunked\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    for (int off = 0; off < upload.length; off += 30_000) {
      int n = Math.min(30_000, upload.length - off);
      requests.write((Integer.toHexString(n) + ";piece=" + off + "\r\n").getBytes(StandardCharsets.US_ASCII));
      requests.write(upload, off, n);
      requests.write("\r\n".getBytes(StandardCharsets.US_ASCII));
    }
    requests.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    requests.write("GET /bytes?n=3&seed=4&chunked=1 HTTP/1.1\r\nHost: b\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    requests.write("GET /bytes?n=500000&seed=5 HTTP/1.1\r\nHost: b\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    try (Socket s = new Socket(front.address().getAddress(), front.address().getPort())) {
      s.setSoTimeout(20_000);
      s.getOutputStream().write(requests.toByteArray()); // all at once: pipelined
      InputStream in = s.getInputStream();
      assertArrayEquals(HttpBackend.content(1, 70_000), RawHttp.read(in, false).body());
      RawHttp.Response head = RawHttp.read(in, true);
      assertEquals("5000", head.header("X-Length"));
      RawHttp.Response echo;
      try {
        echo = RawHttp.read(in, false);
      } catch (java.io.IOException e) {
        throw new AssertionError("resets " + front.resets + " backend " + backend.errors + " stats " + front.stats(), e);
      }
      assertEquals(RawHttp.sha256(upload), RawHttp.sha256(echo.body()));
      assertArrayEquals(HttpBackend.content(4, 3), RawHttp.read(in, false).body());
      assertEquals(RawHttp.sha256(HttpBackend.content(5, 500_000)), RawHttp.sha256(RawHttp.read(in, false).body()));
      assertEquals(-1, in.read(), "Connection: close ends the client connection after its response");
    }
    backend.rethrow();
    assertEquals(1, backend.connections.size(), "one server connection served the five pipelined requests");
    HttpReuseFigures stats = front.stats().get(0);
    assertEquals(5, stats.requests());
    assertEquals(4, stats.reusedRequests());
  }
}
