package io.tcpopt.servicenode;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tcpopt.servicenode.flow.FlowKind;
import io.tcpopt.servicenode.flow.FlowRecord;
import java.io.DataInputStream;
import java.io.DataOutputStream;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stream-id exhaustion, with the limit made small ({@code wan.streams-per-connection: 8}, one
 * connection): after its 8th stream the branch's connection takes no new flow, a replacement is
 * dialled at once, GOAWAY NO_ERROR follows, and the DC closes the old connection once its streams
 * have finished. Flows keep being carried across every retirement, each byte-exact both ways.
 */
class StreamRetirementTest {
  private static final int LIMIT = 8;
  private static final int ROUND = 4;
  private static final int ROUNDS = 12;

  @TempDir static Path certs;

  @Test
  void aConnectionRetiresBeforeItsStreamIdsRunOutAndIsReplaced() throws Exception {
    Map<Integer, String[]> received = new ConcurrentHashMap<>();
    long[][] sizes = new long[ROUND * ROUNDS][2];
    SplittableRandom r = new SplittableRandom(8);
    for (long[] s : sizes) {
      s[0] = 1 + r.nextInt(512 * 1024);
      s[1] = 1 + r.nextInt(512 * 1024);
    }
    try (TestServer server = new TestServer(s -> {
      DataInputStream in = new DataInputStream(s.getInputStream());
      int index = in.readInt();
      long down = in.readLong();
      String sent = Payload.write(s.getOutputStream(), down, 5000 + index);
      s.shutdownOutput();
      Payload.Digest got = Payload.readAll(in);
      received.put(index, new String[] {got.sha256(), Long.toString(got.bytes()), sent});
    });
        // No express connection: the rounds count one connection's stream ids, and while the retired one's replacement is dialled
        // new flows would be homed on the express connection, which would then retire on a schedule of its own.
        TestNodes nodes = TestNodes.start(certs, 1, List.of(server.address()), "    streams-per-connection: " + LIMIT + "\n    express-connection: false\n",
            "")) {
      ExecutorService clients = Executors.newFixedThreadPool(2 * ROUND);
      try {
        for (int round = 0; round < ROUNDS; round++) {
          // A round starts on a connection that takes new flows: the first one, or the replacement of a retired one.
          TestNodes.await(() -> nodes.upAtBranch() == 1, 10_000, "a WAN connection taking new flows");
          List<Future<String[]>> results = new ArrayList<>();
          for (int i = round * ROUND; i < (round + 1) * ROUND; i++) {
            int index = i;
            results.add(clients.submit(() -> flow(nodes, clients, index, sizes[index])));
          }
          for (int k = 0; k < ROUND; k++) {
            int i = round * ROUND + k;
            String[] c = results.get(k).get(30, TimeUnit.SECONDS);
            TestNodes.await(() -> received.containsKey(i), 10_000, "the server's digest of flow " + i);
            String[] srv = received.get(i);
            assertEquals(c[0], srv[0], "upload SHA-256 of flow " + i);
            assertEquals(sizes[i][0], Long.parseLong(srv[1]), "upload size of flow " + i);
            assertEquals(srv[2], c[1], "download SHA-256 of flow " + i);
            assertEquals(sizes[i][1], Long.parseLong(c[2]), "download size of flow " + i);
          }
        }
      } finally {
        clients.shutdownNow();
      }
      server.rethrow();
      int retirements = ROUND * ROUNDS / LIMIT;
      // Each old connection is closed by the DC once its streams are done, 1 s after its last stream (GOAWAY grace).
      TestNodes.await(() -> retired(nodes.dcMeters) == retirements, 10_000, "retirements counted at the DC");
      try {
        TestNodes.await(() -> nodes.upAtDc() == 1, 10_000, "retired connections closed at the DC");
      } catch (AssertionError e) {
        throw new AssertionError(e.getMessage() + ": " + nodes.dc.sessions(), e);
      }
      assertEquals(retirements, retired(nodes.branchMeters), "connections the branch retired");
      assertEquals(1, nodes.upAtBranch());
      TestNodes.await(() -> nodes.branch.flows().active().isEmpty(), 5_000, "flows closed");
      List<FlowRecord> closed = nodes.branch.flows().closed();
      assertEquals(ROUND * ROUNDS, closed.size());
      for (FlowRecord f : closed) {
        assertEquals(FlowKind.OPTIMIZED, f.kind(), "every flow carried over the WAN: " + f);
        assertEquals("completed", f.closeReason(), f.toString());
      }
    }
  }

  private static String[] flow(TestNodes nodes, ExecutorService pool, int index, long[] size) throws Exception {
    try (Socket s = new Socket()) {
      s.connect(nodes.listener(0), 5_000);
      s.setSoTimeout(30_000);
      Future<String> sent = pool.submit(() -> {
        DataOutputStream out = new DataOutputStream(s.getOutputStream());
        out.writeInt(index);
        out.writeLong(size[1]);
        String h = Payload.write(out, size[0], index);
        s.shutdownOutput();
        return h;
      });
      Payload.Digest got = Payload.readAll(s.getInputStream());
      return new String[] {sent.get(), got.sha256(), Long.toString(got.bytes())};
    }
  }

  private static double retiredCount(SimpleMeterRegistry meters) {
    Counter c = meters.find("tcpopt.session.retired").counter();
    return c == null ? 0 : c.count();
  }

  private static int retired(SimpleMeterRegistry meters) {
    return (int) retiredCount(meters);
  }
}
