package io.tcpopt.servicenode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tcpopt.common.tls.DemoCertificates;
import io.tcpopt.common.tls.TlsFiles;
import io.tcpopt.servicenode.flow.FlowRecord;
import io.tcpopt.servicenode.flow.HttpReuseFigures;
import io.tcpopt.servicenode.flow.TlsFigures;
import io.tcpopt.servicenode.reuse.HttpBackend;
import io.tcpopt.servicenode.reuse.RawBackend;
import io.tcpopt.servicenode.reuse.RawHttp;
import io.tcpopt.servicenode.tls.TestTls;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The application profiles of an optimize action through a real branch/DC pair on loopback: HTTP
 * requests of many client connections ride a few pooled server connections at the DC; the
 * branch terminates the client's TLS (dynamic record sizing on the client leg) and the DC
 * re-encrypts towards an HTTPS server. Both nodes decide with the same policy, as in production.
 */
class ApplicationProfilesTest {
  private static final String NAME = "www.example.test";

  @TempDir Path dir;
  private final List<AutoCloseable> open = new ArrayList<>();
  private ServiceNode dc;
  private ServiceNode branch;
  private final SimpleMeterRegistry dcMeters = new SimpleMeterRegistry();

  @AfterEach
  void close() throws Exception {
    if (branch != null) {
      branch.close();
    }
    if (dc != null) {
      dc.close();
    }
    for (AutoCloseable c : open) {
      c.close();
    }
  }

  /** Starts the pair with one branch listener towards {@code target}, both deciding with {@code policyYaml}. */
  private InetSocketAddress startPair(InetSocketAddress target, String policyYaml) {
    FlowDecider decider = TestNodes.decider(policyYaml);
    dc = ServiceNode.start(TestNodes.config("service-node:\n  wan: { listen: 127.0.0.1:0, plaintext: true, connections: 1 }\n"
        + "  peers: [ { name: branch-1, site: branch } ]\n"
        + "  serves: [127.0.0.0/8]   # the test servers run on loopback\n", "dc-1", "dc"),
        decider, dcMeters);
    String branchYaml = "service-node:\n"
        + "  wan: { listen: 127.0.0.1:0, plaintext: true, connections: 1 }\n"
        + "  peers:\n"
        + "    - { name: dc-1, site: dc, address: 127.0.0.1:" + dc.wanAddress().getPort() + ", prefixes: [127.0.0.0/8] }\n"
        + "  interception:\n"
        + "    listeners:\n"
        + "      - { listen: 127.0.0.1:0, target: 127.0.0.1:" + target.getPort() + " }\n";
    branch = ServiceNode.start(TestNodes.config(branchYaml, "branch-1", "branch"), decider, new SimpleMeterRegistry());
    TestNodes.await(() -> TestNodes.poolsUp(branch, dc), 10_000, "session up");
    return branch.listenerAddresses().get(0);
  }

  private static String policy(String profiles, String action) {
    return profiles
        + "service-node-groups: { G: { site: branch } }\n"
        + "data-policy:\n"
        + "  sequences:\n"
        + "    - { seq: 1, action: { optimize: { service-node-group: G" + action + " } } }\n";
  }

  private static List<FlowRecord> closed(ServiceNode node, int count) {
    TestNodes.await(() -> node.flows().closed().size() >= count, 10_000, count + " closed flows");
    return node.flows().closed();
  }

  @Test
  void requestsOfManyClientConnectionsRidePooledServerConnectionsAtTheDc() throws Exception {
    HttpBackend backend = new HttpBackend();
    open.add(backend);
    InetSocketAddress front = startPair(backend.address(), policy("http-reuse-profiles: { web: { max-reuse: 1000 } }\n", ", http-reuse: web"));
    int clients = 8;
    int requests = 120;
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int i = 0; i < requests; i++) {
        int seed = i;
        int size = 1000 + (i * 7919) % (200 << 10);
        done.add(pool.submit(() -> {
          try (Socket s = new Socket(front.getAddress(), front.getPort())) {
            s.setSoTimeout(20_000);
            s.getOutputStream().write(("GET /bytes?n=" + size + "&seed=" + seed + (seed % 2 == 0 ? "&chunked=1" : "") + " HTTP/1.1\r\nHost: b\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
            assertEquals(RawHttp.sha256(HttpBackend.content(seed, size)), RawHttp.sha256(RawHttp.read(s.getInputStream(), false).body()));
          }
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    backend.rethrow();
    assertEquals(requests, backend.exchanges.get());
    assertTrue(backend.connections.size() <= 2 * clients, backend.connections.size() + " server connections for " + requests + " requests");
    List<FlowRecord> atDc = closed(dc, requests);
    for (FlowRecord r : atDc) {
      HttpReuseFigures reuse = r.httpReuse();
      assertNotNull(reuse, "the DC's flow record shows reuse");
      assertEquals(1, reuse.requests());
      assertTrue(reuse.serverConnection().startsWith("#"), reuse.serverConnection());
      assertNull(reuse.fallback());
      assertEquals("completed", r.closeReason());
    }
    assertEquals(requests - backend.connections.size(), dcMeters.get("tcpopt.http.reuse.connections.reused").counter().count());
    assertEquals(backend.connections.size(), dcMeters.get("tcpopt.http.reuse.connections.opened").counter().count());
  }

  @Test
  void aFlowReuseCannotFrameIsCarriedAsAPlainRelayWithHalfCloseBothWays() throws Exception {
    RawBackend echo = new RawBackend(RawBackend::echo);
    open.add(echo);
    InetSocketAddress front = startPair(echo.address(), policy("", ", http-reuse: oneconnect"));
    byte[] data = HttpBackend.content(5, 1_000_000);
    data[0] = 0x16; // a TLS record, not a request line
    try (Socket s = new Socket(front.getAddress(), front.getPort())) {
      s.setSoTimeout(20_000);
      s.getOutputStream().write(data);
      s.shutdownOutput();
      assertEquals(RawHttp.sha256(data), RawHttp.sha256(s.getInputStream().readAllBytes()), "every byte back, then the end");
    }
    echo.rethrow();
    FlowRecord atDc = closed(dc, 1).get(0);
    assertEquals("not-http1", atDc.httpReuse().fallback());
    assertEquals("completed", atDc.closeReason());
    assertEquals("completed", closed(branch, 1).get(0).closeReason());
  }

  private TlsFiles certificates() {
    return DemoCertificates.generate(dir.resolve("certs"), List.of(NAME)).get(NAME);
  }

  private static SSLContext serverContext(TlsFiles files) throws Exception {
    return TestTls.serverContext(files);
  }

  private static SSLSocket tlsClient(TlsFiles files, InetSocketAddress to) throws Exception {
    return TestTls.client(files, to, NAME, null);
  }

  private static RawHttp.Response get(SSLSocket s, String path) throws Exception {
    s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: " + NAME + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
    s.getOutputStream().flush();
    return RawHttp.read(s.getInputStream(), false);
  }

  @Test
  void theBranchTerminatesTlsAndTheDcReEncryptsOverPooledConnections() throws Exception {
    TlsFiles files = certificates();
    HttpBackend https = new HttpBackend(serverContext(files));
    open.add(https);
    String profiles = "client-ssl-profiles: { www: { certificate: '" + files.certificateChain() + "', private-key: '" + files.privateKey()
        + "', dynamic-record-threshold: 64KiB } }\n"
        + "server-ssl-profiles: { backend: { ca-file: '" + files.trustedCertificates() + "', server-name: " + NAME + " } }\n";
    InetSocketAddress front = startPair(https.address(), policy(profiles, ", client-ssl: www, server-ssl: backend, http-reuse: oneconnect"));
    for (int i = 0; i < 3; i++) {
      try (SSLSocket s = tlsClient(files, front)) {
        assertArrayEquals(HttpBackend.content(i, 300_000), get(s, "/bytes?n=300000&seed=" + i).body(), "response " + i + " byte-exact");
        assertArrayEquals(HttpBackend.content(10 + i, 5_000), get(s, "/bytes?n=5000&seed=" + (10 + i)).body());
        assertEquals("TLSv1.3", s.getSession().getProtocol());
      }
    }
    https.rethrow();
    assertEquals(6, https.exchanges.get());
    assertEquals(1, https.connections.size(), "three TLS clients, six requests, one re-encrypted server connection");
    for (FlowRecord r : closed(branch, 3)) {
      TlsFigures tls = r.tls();
      assertNotNull(tls, "the branch's flow record shows the terminated TLS");
      assertEquals("TLSv1.3", tls.protocol());
      assertNotNull(tls.cipher());
      assertTrue(tls.dynamicRecordSizing());
      assertTrue(tls.smallRecords() >= 48, "64KiB in small records first: " + tls);
      assertTrue(tls.largeRecords() >= 10, "then full records: " + tls);
    }
    for (FlowRecord r : closed(dc, 3)) {
      assertEquals(2, r.httpReuse().requests());
    }
  }

  @Test
  void withoutAServerSslProfileTheDcSpeaksPlaintextToTheServer() throws Exception {
    TlsFiles files = certificates();
    HttpBackend plain = new HttpBackend(); // a plaintext HTTP server: it could not answer a TLS ClientHello
    open.add(plain);
    String profiles = "client-ssl-profiles: { www: { certificate: '" + files.certificateChain() + "', private-key: '" + files.privateKey() + "' } }\n";
    InetSocketAddress front = startPair(plain.address(), policy(profiles, ", client-ssl: www"));
    try (SSLSocket s = tlsClient(files, front)) {
      assertArrayEquals(HttpBackend.content(21, 200_000), get(s, "/bytes?n=200000&seed=21").body(), "byte-exact through TLS, then plaintext");
      assertArrayEquals(HttpBackend.content(22, 3_000), get(s, "/bytes?n=3000&seed=22&chunked=1").body());
    }
    plain.rethrow();
    assertEquals(2, plain.exchanges.get());
    TlsFigures tls = closed(branch, 1).get(0).tls();
    assertNotNull(tls, "terminated at the branch");
    assertTrue(tls.dynamicRecordSizing());
    assertNull(closed(dc, 1).get(0).tls(), "no TLS of the branch's at the DC");
  }

  @Test
  void aKeyOthersCanReadLeavesTheFlowUnterminatedAndSaysWhy() throws Exception {
    TlsFiles files = certificates();
    // The server itself speaks TLS: an unterminated flow still works end to end, only not terminated at the branch.
    HttpBackend https = new HttpBackend(serverContext(files));
    open.add(https);
    Files.setPosixFilePermissions(files.privateKey(), PosixFilePermissions.fromString("rw-r--r--"));
    String profiles = "client-ssl-profiles: { open-key: { certificate: '" + files.certificateChain() + "', private-key: '" + files.privateKey()
        + "' } }\n";
    InetSocketAddress front = startPair(https.address(), policy(profiles, ", client-ssl: open-key"));
    try (SSLSocket s = tlsClient(files, front)) {
      assertArrayEquals(HttpBackend.content(1, 1000), get(s, "/bytes?n=1000&seed=1").body());
    }
    FlowRecord r = closed(branch, 1).get(0);
    assertNull(r.tls());
    assertTrue(r.reason().contains("client-ssl open-key not applied: ") && r.reason().contains("readable by group or others"), r.reason());
  }
}
