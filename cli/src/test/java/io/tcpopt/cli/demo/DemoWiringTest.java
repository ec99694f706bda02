package io.tcpopt.cli.demo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.cli.CliRun;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The demo deployment (controller + branch and DC service nodes, generated certificates, sample
 * policy applied over gRPC): a transfer through it is optimized, shows as such in {@code flows},
 * and moves the Prometheus counters while it runs.
 */
class DemoWiringTest {
  @RegisterExtension
  static final DemoClusterExtension cluster = new DemoClusterExtension();

  @Test
  void transferIsOptimizedAndListedWithItsBytes() throws Exception {
    long size = 4L << 20;
    Transfer.Result r = Transfer.download(cluster.demo().listener(), size, Duration.ofSeconds(60), n -> {});
    assertTrue(r.digestMatches(), "SHA-256 of the received bytes must match what the server sent");
    try (Socket echo = Transfer.openEcho(cluster.demo().listener(), Duration.ofSeconds(30))) {
      CliRun active = cluster.cli("flows", "-o", "json");
      assertEquals(0, active.exitCode(), active.err());
      assertTrue(active.out().contains("\"state\": \"OPTIMIZED\""), active.out());
      assertTrue(active.out().contains("\"services\": \"tcp-optimization\""), active.out());

      // status counts what the flow table holds (the live count, not the last heartbeat's) and says where.
      long listed = Pattern.compile("\"id\": ").matcher(active.out()).results().count();
      CliRun status = cluster.cli("status");
      assertTrue(status.out().contains("Flows:       " + listed + " active of 10000 (0.0% used) on branch-1\n"), status.out());
      CliRun statusJson = cluster.cli("status", "-o", "json");
      assertTrue(statusJson.out().contains("\"active\": " + listed + ","), statusJson.out());
      assertTrue(statusJson.out().matches("(?s).*\"nodes\": \\[\\s*\\{\\s*\"node\": \"branch-1\".*"), statusJson.out());

      CliRun table = cluster.cli("flows");
      assertTrue(table.out().lines().anyMatch(l -> l.matches("branch-1/\\d+\\s+0\\s+127\\.0\\.0\\.1:\\d+\\s+127\\.0\\.0\\.1:\\d+\\s+branch-1\\s+tcp-optimization\\s+optimized.*")),
          table.out());
    }
    CliRun closed = cluster.cli("flows", "--closed", "-o", "json");
    assertTrue(closed.out().contains("\"bytesToClient\": " + size), closed.out());

    CliRun status = cluster.cli("status");
    assertTrue(status.out().contains("Policy:      " + DemoCluster.POLICY_NAME + " (version 1)"), status.out());
    assertTrue(status.out().lines().anyMatch(l -> l.matches("branch-1\\s+dc-1\\s+dc\\s+2/2\\s+up\\s.*")), status.out());
  }

  @Test
  void metricsCountersMoveDuringATransfer() throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    URI metrics = URI.create("http://" + DemoCluster.hostPort(cluster.demo().branch().metrics().address()) + "/metrics");
    long size = 32L << 20;
    double before = serverToClientBytes(scrape(http, metrics));
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    try (Socket socket = new Socket()) {
      socket.connect(cluster.demo().listener(), 10_000);
      socket.setSoTimeout(60_000);
      OutputStream out = socket.getOutputStream();
      out.write(new byte[] {'D', 0, 0, 0, 0, 0x02, 0, 0, 0}); // 0x02000000 = 32 MiB
      out.flush();
      InputStream in = socket.getInputStream();
      read(in, sha, 1 << 20);
      String first = scrape(http, metrics);
      read(in, sha, 15 << 20);
      String second = scrape(http, metrics);
      read(in, sha, 16 << 20);
      assertEquals(-1, in.read(), "the server closes after 32 MiB");

      double v1 = serverToClientBytes(first) - before;
      double v2 = serverToClientBytes(second) - before;
      assertTrue(v1 >= 1 << 20, "after 1 MiB the byte counter shows at least 1 MiB: " + v1);
      assertTrue(v2 >= 16 << 20 && v2 > v1, "the byte counter moved: " + v1 + " -> " + v2);
      assertTrue(first.contains("tcpopt_flows_active"), "flow gauge missing");
      Matcher opened = Pattern.compile("(?m)^tcpopt_flows_opened_total\\{[^}]*kind=\"optimized\"[^}]*\\} (\\S+)").matcher(first);
      assertTrue(opened.find() && Double.parseDouble(opened.group(1)) >= 1, "optimized flows counter missing:\n" + first);
      assertTrue(first.contains("jvm_memory_used_bytes"), "JVM metrics missing");
    }
    assertArrayEquals(SampleServer.DataPattern.digest(size), sha.digest());
    String after = scrape(http, metrics);
    Matcher classified = Pattern.compile("(?m)^tcpopt_flow_classification_seconds_count\\{[^}]*\\} (\\S+)").matcher(after);
    assertTrue(classified.find() && Double.parseDouble(classified.group(1)) >= 1, "classification timer missing:\n" + after);
    String withSessions = after;
    for (int i = 0; i < 120 && !withSessions.contains("tcpopt_session_rtt_seconds{"); i++) {
      Thread.sleep(100);
      withSessions = scrape(http, metrics);
    }
    assertTrue(withSessions.matches("(?s).*tcpopt_session_rtt_seconds\\{[^}]*peer=\"dc-1\"[^}]*\\} \\S+.*"),
        "per-peer WAN RTT gauge missing:\n" + withSessions);
  }

  private static void read(InputStream in, MessageDigest sha, int n) throws Exception {
    byte[] buffer = new byte[64 * 1024];
    for (int left = n; left > 0; ) {
      int got = in.read(buffer, 0, Math.min(buffer.length, left));
      if (got < 0) {
        throw new AssertionError("stream ended early");
      }
      sha.update(buffer, 0, got);
      left -= got;
    }
  }

  private static String scrape(HttpClient http, URI uri) throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode());
    return r.body();
  }

  private static double serverToClientBytes(String scrape) {
    Matcher m = Pattern.compile("(?m)^tcpopt_flow_bytes\\w*\\{[^}]*direction=\"server-to-client\"[^}]*\\} (\\S+)").matcher(scrape);
    return m.find() ? Double.parseDouble(m.group(1)) : 0;
  }
}
