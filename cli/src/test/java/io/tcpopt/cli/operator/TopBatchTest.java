package io.tcpopt.cli.operator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.cli.CliRun;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code tcpopt top --batch}: plain frames with the header, peers and busiest flows, then exit 0. */
class TopBatchTest {
  @Test
  void batchFramesShowPolicyPeersAndBusiestFlows() {
    FakeController fake = new FakeController();
    CliRun r = CliRun.run(fake.connector(), "top", "-b", "-n", "2", "--interval", "0.1");
    assertEquals(0, r.exitCode(), r.err());
    List<String> lines = r.out().lines().toList();
    assertEquals(2, lines.stream().filter(l -> l.startsWith("tcpopt top - 127.0.0.1:7700   DEGRADED   policy first v1")).count(), r.out());
    assertTrue(r.out().contains("  1 of 2 sessions down"), r.out());
    assertTrue(r.out().contains("Flows: 2 active (2 optimized, 0 pass-through) on branch-1, 0.1% of capacity"), r.out());
    assertTrue(lines.stream().anyMatch(l -> l.matches("branch-1\\s+dc-1\\s+dc\\s+3/4\\s+up\\s+1\\.5ms\\s+42\\s+7\\s+bbr\\s+\\S+")), r.out());
    // Busiest first: f-1 (64 MiB at 250 Mbit/s on average) before f-2.
    int f1 = r.out().indexOf("\nf-1 ");
    int f2 = r.out().indexOf("\nf-2 ");
    assertTrue(f1 > 0 && f2 > f1, r.out());
    assertTrue(r.out().contains("250Mbit/s"), r.out());
    assertTrue(!r.out().contains("\033["), "no terminal escapes in batch mode");
  }

  @Test
  void badIntervalIsAUsageError() {
    CliRun r = CliRun.run(new FakeController().connector(), "top", "--interval", "0");
    assertEquals(2, r.exitCode());
    assertEquals("tcpopt: --interval must be at least 0.1 seconds", r.errorLine());
  }
}
