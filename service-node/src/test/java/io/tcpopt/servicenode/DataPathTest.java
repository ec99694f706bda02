package io.tcpopt.servicenode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.servicenode.flow.FlowKind;
import io.tcpopt.servicenode.flow.FlowRecord;
import io.tcpopt.servicenode.flow.FlowTableSnapshot;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * 200 concurrent flows through a branch/DC pair over mutual TLS, sizes log-uniform from 1 byte to
 * 64 MiB independently in each direction; the SHA-256 of every byte is compared at both ends, and
 * the WAN connection count stays at the pool size: {@code connections: 4} and, by default, the
 * express connection, which both nodes' status label as such.
 */
class DataPathTest {
  private static final Logger log = LoggerFactory.getLogger(DataPathTest.class);
  private static final int FLOWS = 200;
  private static final int POOL = 4;
  private static final long MAX = 64L << 20;
  private static final long BUDGET = 256L << 20;

  @TempDir static Path certs;
  static TestServer server;
  static TestNodes nodes;
  static final Map<Integer, String[]> received = new ConcurrentHashMap<>();

  @BeforeAll
  static void start() throws Exception {
    server = new TestServer(DataPathTest::serve);
    // 800 test threads hashing on a small shared machine can starve the nodes' event loops for
    // seconds; a long keepalive keeps dead-peer detection (tested elsewhere) out of this test.
    nodes = TestNodes.start(certs, POOL, List.of(server.address()), "    stream-window: 1MiB\n    keepalive: 30s\n",
        "connect-timeout: 5s");
  }

  @AfterAll
  static void stop() throws Exception {
    if (nodes != null) {
      nodes.close();
    }
    if (server != null) {
      server.close();
    }
  }

  /** Server side: a 16-byte header (flow index, download size), then download and upload at once. */
  private static void serve(Socket s) throws Exception {
    DataInputStream in = new DataInputStream(s.getInputStream());
    int index = in.readInt();
    in.readInt();
    long down = in.readLong();
    Future<String> sent = server.pool().submit(() -> {
      String h = Payload.write(s.getOutputStream(), down, 1000 + index);
      s.shutdownOutput();
      return h;
    });
    Payload.Digest got = Payload.readAll(in);
    received.put(index, new String[] {got.sha256(), Long.toString(got.bytes()), sent.get()});
  }

  /**
   * Log-uniform sizes from 1 byte to 64 MiB, independently per direction, with a 1-byte and a
   * 64 MiB flow each way; the largest random sizes are halved until each direction fits the budget.
   */
  static long[][] sizes() {
    SplittableRandom r = new SplittableRandom(2026);
    long[][] s = new long[FLOWS][2];
    for (int i = 0; i < FLOWS; i++) {
      s[i][0] = Math.max(1, (long) Math.exp(r.nextDouble() * Math.log(MAX)));
      s[i][1] = Math.max(1, (long) Math.exp(r.nextDouble() * Math.log(MAX)));
    }
    s[0][0] = 1;
    s[1][1] = 1;
    s[2][0] = MAX;
    s[3][1] = MAX;
    for (int dir = 0; dir < 2; dir++) {
      while (total(s, dir) > BUDGET) {
        int largest = -1;
        for (int i = 4; i < FLOWS; i++) {
          if (largest < 0 || s[i][dir] > s[largest][dir]) {
            largest = i;
          }
        }
        s[largest][dir] /= 2;
      }
    }
    return s;
  }

  private static long total(long[][] s, int dir) {
    long t = 0;
    for (long[] f : s) {
      t += f[dir];
    }
    return t;
  }

  @Test
  void twoHundredConcurrentFlowsArriveByteExactOverMutualTls() throws Exception {
    long[][] sizes = sizes();
    long up = 0;
    long down = 0;
    for (long[] f : sizes) {
      up += f[0];
      down += f[1];
    }
    InetSocketAddress listener = nodes.listener(0);
    ExecutorService clients = Executors.newFixedThreadPool(2 * FLOWS);
    long start = System.nanoTime();
    try {
      List<Future<String[]>> results = new ArrayList<>();
      for (int i = 0; i < FLOWS; i++) {
        int index = i;
        results.add(clients.submit(() -> {
          try (Socket s = new Socket()) {
            s.connect(listener, 5_000);
            s.setSoTimeout(120_000);
            Future<String> sent = clients.submit(() -> {
              DataOutputStream out = new DataOutputStream(s.getOutputStream());
              out.writeInt(index);
              out.writeInt(0);
              out.writeLong(sizes[index][1]);
              String h = Payload.write(out, sizes[index][0], index);
              s.shutdownOutput();
              return h;
            });
            Payload.Digest got = Payload.readAll(s.getInputStream());
            return new String[] {sent.get(), got.sha256(), Long.toString(got.bytes())};
          }
        }));
      }
      for (int i = 0; i < FLOWS; i++) {
        String[] c = results.get(i).get(170, TimeUnit.SECONDS);
        int index = i;
        TestNodes.await(() -> received.containsKey(index), 10_000, "the server's digest of flow " + i);
        String[] srv = received.get(i);
        assertEquals(c[0], srv[0], "upload SHA-256 of flow " + i + " (" + sizes[i][0] + " bytes)");
        assertEquals(sizes[i][0], Long.parseLong(srv[1]), "upload size of flow " + i);
        assertEquals(srv[2], c[1], "download SHA-256 of flow " + i + " (" + sizes[i][1] + " bytes)");
        assertEquals(sizes[i][1], Long.parseLong(c[2]), "download size of flow " + i);
      }
    } finally {
      clients.shutdownNow();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    log.info("{} flows, {} MiB up and {} MiB down in {} s ({} MiB/s total)", FLOWS, up >> 20, down >> 20, String.format("%.1f", seconds),
        String.format("%.0f", (up + down) / 1048576.0 / seconds));
    server.rethrow();

    assertEquals(POOL + 1, nodes.upAtBranch(), "WAN connections at the branch, the express one included");
    assertEquals(POOL + 1, nodes.upAtDc(), "WAN connections accepted by the DC, the express one included");
    PeerSessionStatus dcView = nodes.branch.sessions().get(0);
    assertEquals(POOL + 1, dcView.connectionsConfigured());
    assertEquals(1, dcView.expressUp());
    assertTrue(dcView.expressConfigured(), "the branch dials an express connection by default");
    PeerSessionStatus branchView = nodes.dc.sessions().get(0);
    assertEquals(1, branchView.expressUp(), "the DC knows the express connection from its number");
    assertFalse(branchView.expressConfigured(), "the DC dials none");

    TestNodes.await(() -> nodes.branch.flows().active().isEmpty() && nodes.dc.flows().active().isEmpty(), 5_000, "flows closed");
    FlowTableSnapshot flows = nodes.branch.flows();
    assertEquals(FLOWS, flows.closed().size());
    for (FlowRecord r : flows.closed()) {
      assertEquals(FlowKind.OPTIMIZED, r.kind(), r.toString());
      assertEquals("completed", r.closeReason(), r.toString());
      assertEquals("dc-1", r.peer());
    }
    long carriedUp = flows.closed().stream().mapToLong(FlowRecord::bytesClientToServer).sum();
    assertEquals(up + 16L * FLOWS, carriedUp, "bytes counted client to server at the branch");
    assertTrue(nodes.dc.flows().closed().stream().allMatch(r -> r.kind() == FlowKind.OPTIMIZED && "completed".equals(r.closeReason())));
  }
}
