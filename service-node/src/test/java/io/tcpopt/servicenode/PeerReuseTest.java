package io.tcpopt.servicenode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tcpopt.servicenode.flow.FlowRecord;
import io.tcpopt.servicenode.reuse.HttpBackend;
import io.tcpopt.servicenode.reuse.RawHttp;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 10's last gap through a real branch/DC pair on loopback: the branch's policy alone turns
 * HTTP server-connection reuse on at the DC, because its OPEN carries the http-reuse profile
 * (open-flags bit 11). The DC keeps authority: it clamps the peer's settings to its own
 * {@code peer-http-reuse} maxima, can refuse them (each flow then gets a server connection of its
 * own and says why), and the OPEN's profile takes precedence over the DC policy's own. Every
 * response is compared by SHA-256 with what its client asked for.
 */
class PeerReuseTest {
  private static final String WEB = "http-reuse-profiles: { web: { max-size: 64, max-reuse: 1000, idle-timeout: 4s } }\n";

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

  private static String policy(String profiles, String action) {
    return profiles
        + "service-node-groups: { G: { site: branch } }\n"
        + "data-policy:\n"
        + "  sequences:\n"
        + "    - { seq: 1, action: { optimize: { service-node-group: G" + action + " } } }\n";
  }

  /**
   * The pair: the branch decides with {@code branchPolicy}; the DC with {@code dcDecider} and the
   * extra service-node settings {@code dcSettings}. Returns the branch's listener towards {@code target}.
   */
  private InetSocketAddress startPair(InetSocketAddress target, FlowDecider branchDecider, FlowDecider dcDecider, String dcSettings) {
    dc = ServiceNode.start(TestNodes.config("service-node:\n  wan: { listen: 127.0.0.1:0, plaintext: true, connections: 1 }\n"
        + "  peers: [ { name: branch-1, site: branch } ]\n"
        + "  serves: [127.0.0.0/8]\n" + dcSettings, "dc-1", "dc"), dcDecider, dcMeters);
    String branchYaml = "service-node:\n"
        + "  wan: { listen: 127.0.0.1:0, plaintext: true, connections: 1 }\n"
        + "  peers:\n"
        + "    - { name: dc-1, site: dc, address: 127.0.0.1:" + dc.wanAddress().getPort() + ", prefixes: [127.0.0.0/8] }\n"
        + "  interception:\n"
        + "    listeners:\n"
        + "      - { listen: 127.0.0.1:0, target: 127.0.0.1:" + target.getPort() + " }\n";
    branch = ServiceNode.start(TestNodes.config(branchYaml, "branch-1", "branch"), branchDecider, new SimpleMeterRegistry());
    TestNodes.await(() -> TestNodes.poolsUp(branch, dc), 10_000, "session up");
    return branch.listenerAddresses().get(0);
  }

  /** {@code requests} GETs, a new client connection each, {@code clients} at a time; each body checked by SHA-256. */
  private static void fetch(InetSocketAddress front, int requests, int clients) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int i = 0; i < requests; i++) {
        int seed = 1000 + i;
        int size = 500 + (i * 7919) % (64 << 10);
        done.add(pool.submit(() -> {
          try (Socket s = new Socket(front.getAddress(), front.getPort())) {
            s.setSoTimeout(20_000);
            s.getOutputStream().write(("GET /bytes?n=" + size + "&seed=" + seed + (seed % 3 == 0 ? "&chunked=1" : "")
                + " HTTP/1.1\r\nHost: b\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            assertEquals(RawHttp.sha256(HttpBackend.content(seed, size)), RawHttp.sha256(RawHttp.read(s.getInputStream(), false).body()),
                "response " + seed + " byte-exact to its own client");
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
  }

  private static List<FlowRecord> closed(ServiceNode node, int count) {
    TestNodes.await(() -> node.flows().closed().size() >= count, 10_000, count + " closed flows");
    return node.flows().closed();
  }

  @Test
  void theBranchsPolicyAloneTurnsReuseOnAtTheDc() throws Exception {
    HttpBackend backend = new HttpBackend();
    open.add(backend);
    // The DC has no policy of its own: without the OPEN's profile it would open a server connection per flow.
    InetSocketAddress front = startPair(backend.address(), TestNodes.decider(policy(WEB, ", http-reuse: web")), FlowDecider.optimizeAll(), "");
    int requests = 60;
    fetch(front, requests, 6);
    backend.rethrow();
    assertEquals(requests, backend.exchanges.get());
    assertTrue(backend.connections.size() <= requests / 4, backend.connections.size() + " server connections for " + requests + " requests");
    for (FlowRecord r : closed(dc, requests)) {
      assertNotNull(r.httpReuse(), "the DC's flow record shows reuse");
      assertNull(r.httpReuse().fallback());
      assertTrue(r.reason().contains("http-reuse from peer's OPEN"), r.reason());
      assertEquals("completed", r.closeReason());
    }
    assertEquals(backend.connections.size(), dcMeters.get("tcpopt.http.reuse.connections.opened").counter().count());
  }

  @Test
  void aDcThatRefusesPeersReuseGivesEachFlowItsOwnServerConnectionAndSaysWhy() throws Exception {
    HttpBackend backend = new HttpBackend();
    open.add(backend);
    InetSocketAddress front = startPair(backend.address(), TestNodes.decider(policy(WEB, ", http-reuse: web")), FlowDecider.optimizeAll(),
        "  peer-http-reuse: { allow: false }\n");
    int requests = 12;
    fetch(front, requests, 3);
    backend.rethrow();
    assertEquals(requests, backend.connections.size(), "one server connection per flow");
    for (FlowRecord r : closed(dc, requests)) {
      assertNull(r.httpReuse(), "a plain optimized flow");
      assertTrue(r.reason().contains("peer's http-reuse not honoured (peer-http-reuse.allow is false): one server connection per flow"), r.reason());
      assertEquals("completed", r.closeReason());
    }
  }

  @Test
  void thePeersSettingsAreClampedToTheDcsMaxima() throws Exception {
    HttpBackend backend = new HttpBackend();
    open.add(backend);
    InetSocketAddress front = startPair(backend.address(), TestNodes.decider(policy(WEB, ", http-reuse: web")), FlowDecider.optimizeAll(),
        "  peer-http-reuse: { max-reuse: 2, idle-timeout: 1s }\n");
    int requests = 9;
    fetch(front, requests, 1); // one at a time: each connection is reused until its max-reuse
    backend.rethrow();
    // max-reuse 2: a connection serves its first request and 2 more, so 9 sequential requests need 3.
    assertEquals(3, backend.connections.size(), "the DC's max-reuse 2, not the branch's 1000");
    FlowRecord r = closed(dc, requests).get(0);
    assertTrue(r.reason().contains("http-reuse from peer's OPEN (clamped: max-reuse 1000 -> 2, idle-timeout 4000ms -> 1000ms)"), r.reason());
  }

  @Test
  void theOpensProfileTakesPrecedenceOverTheDcPolicysOwn() throws Exception {
    HttpBackend backend = new HttpBackend();
    open.add(backend);
    // The DC's own policy would close each connection after one reuse; the branch's profile allows 1000.
    FlowDecider dcPolicy = TestNodes.decider(policy("http-reuse-profiles: { short: { max-reuse: 1 } }\n", ", http-reuse: short"));
    InetSocketAddress front = startPair(backend.address(), TestNodes.decider(policy(WEB, ", http-reuse: web")), dcPolicy, "");
    fetch(front, 8, 1);
    backend.rethrow();
    assertEquals(1, backend.connections.size(), "8 sequential requests on one connection: the OPEN's max-reuse 1000 decided");
  }

  @Test
  void withoutAProfileInTheOpenTheDcPolicysOwnStillApplies() throws Exception {
    HttpBackend backend = new HttpBackend();
    open.add(backend);
    FlowDecider dcPolicy = TestNodes.decider(policy("http-reuse-profiles: { short: { max-reuse: 1 } }\n", ", http-reuse: short"));
    InetSocketAddress front = startPair(backend.address(), TestNodes.decider(policy("", "")), dcPolicy, "");
    fetch(front, 8, 1);
    backend.rethrow();
    assertEquals(4, backend.connections.size(), "the DC's own max-reuse 1: two requests per connection");
    FlowRecord r = closed(dc, 8).get(0);
    assertNotNull(r.httpReuse());
    assertTrue(!r.reason().contains("peer's"), r.reason());
  }
}
