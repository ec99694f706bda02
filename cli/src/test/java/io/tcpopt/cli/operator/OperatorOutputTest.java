package io.tcpopt.cli.operator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.cli.CliRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How the operator commands print, against an in-memory controller (the live one: OperatorCommandsIT). */
class OperatorOutputTest {
  private final FakeController controller = new FakeController();

  private CliRun run(String... args) {
    return CliRun.run(controller.connector(), args);
  }

  @Test
  void statusTableShowsStateGroupsAndSessions() {
    CliRun r = run("status");
    assertEquals(0, r.exitCode(), r.err());
    assertTrue(r.out().contains("State:       DEGRADED (1 of 2 sessions down)"), r.out());
    assertTrue(r.out().contains("Policy:      first (version 1)"), r.out());
    assertTrue(r.out().contains("Flows:       5 active of 10000 (0.1% used) on branch-1"), r.out());
    assertTrue(r.out().lines().anyMatch(l -> l.matches("SNG-APPQOE\\s+branch\\s+branch-1\\s+healthy\\s+12\\.5%")), r.out());
    assertTrue(r.out().lines().anyMatch(l -> l.matches("branch-1\\s+dc-1\\s+dc\\s+3/4\\s+up\\s+1\\.5ms\\s+42\\s+7\\s+bbr")), r.out());
    assertTrue(controller.closed);
  }

  @Test
  void statusJsonCarriesRawNumbers() {
    CliRun r = run("status", "-o", "json");
    assertEquals(0, r.exitCode(), r.err());
    assertTrue(r.out().startsWith("{\n  \"state\": \"DEGRADED\",\n  \"reason\": \"1 of 2 sessions down\""), r.out());
    assertTrue(r.out().contains("\"rttMicros\": 1500"), r.out());
    assertTrue(r.out().contains("\"capacity\": 10000"), r.out());
  }

  @Test
  void ipv6FlowsPrintBracketedAlignedAndAreFoundByAnyFormOfTheirAddress() {
    controller.moreFlows.add(new Views.Flow("f-6", 10, "[2001:2:0:1801::2]:40003", "[2001:2:0:1901::2]:5201", "branch", "branch-1", "TCP-OPT",
        "OPTIMIZED", 10, 10, 0, 200_000, java.time.Instant.EPOCH, java.time.Duration.ofSeconds(1), null, "dc-1", "", ""));
    for (String form : List.of("2001:2:0:1801:0:0:0:2", "[2001:2:0:1801::2]", "2001:2:0:1901::2")) {
      CliRun r = run("flows", "--address", form);
      assertEquals(0, r.exitCode(), r.err());
      List<String> lines = r.out().lines().toList();
      assertEquals(2, lines.size(), form + ":\n" + r.out());
      assertEquals(lines.get(0).indexOf("SOURCE"), lines.get(1).indexOf("[2001:2:0:1801::2]:40003"), r.out());
      assertEquals(lines.get(0).indexOf("DESTINATION"), lines.get(1).indexOf("[2001:2:0:1901::2]:5201"), r.out());
    }
    CliRun v4 = run("flows", "--address", "198.18.1.3");
    assertEquals(2, v4.out().lines().count(), v4.out());
    assertFalse(v4.out().contains("2001:"), v4.out());
    CliRun json = run("flows", "--port", "40003", "-o", "json");
    assertTrue(json.out().contains("\"source\": \"[2001:2:0:1801::2]:40003\""), json.out());
  }

  @Test
  void flowsTableIsAligned() {
    CliRun r = run("flows");
    assertEquals(0, r.exitCode(), r.err());
    List<String> lines = r.out().lines().toList();
    assertEquals(3, lines.size(), r.out());
    assertTrue(lines.get(0).startsWith("FLOW  VPN  SOURCE"), lines.get(0));
    int column = lines.get(0).indexOf("DESTINATION");
    assertEquals(column, lines.get(1).indexOf("198.19.1.2:5201"));
    assertEquals(column, lines.get(2).indexOf("198.19.1.9:80"));
    assertTrue(lines.get(1).contains("64MiB") && lines.get(1).contains("250Mbit/s") && lines.get(1).contains("200ms"), lines.get(1));
    // The http-reuse figures: which server connection served the flow, how many requests.
    assertTrue(lines.get(0).endsWith("HTTP REUSE / TLS"), lines.get(0));
    assertEquals(lines.get(0).indexOf("HTTP REUSE"), lines.get(2).indexOf("3 requests, 2 reused, last on #12 198.19.1.1:40112->198.19.1.9:80"));
    CliRun json = run("flows", "-o", "json");
    assertTrue(json.out().contains("\"httpReuse\": \"3 requests, 2 reused, last on #12"), json.out());
  }

  @Test
  void flowsFiltersByNodePortAndAddress() {
    assertEquals(2, run("flows", "--node", "branch-2").out().lines().count());
    assertEquals(2, run("flows", "--port", "5201").out().lines().count());
    assertEquals(2, run("flows", "--address", "198.18.1.3").out().lines().count());
    assertEquals("no active flows\n", run("flows", "--state", "closed").out());
    CliRun json = run("flows", "--node", "branch-1", "-o", "json");
    assertTrue(json.out().contains("\"id\": \"f-1\"") && !json.out().contains("f-2"), json.out());
  }

  @Test
  void aFilterThatCanMatchNothingIsAUsageError() {
    CliRun state = run("flows", "--state", "optimised");
    assertEquals(2, state.exitCode(), state.out());
    assertEquals("tcpopt: --state must be one of opening, optimized, pass_through, dropped, closing, closed, not optimised", state.errorLine());
    CliRun port = run("flows", "--port", "99999");
    assertEquals(2, port.exitCode(), port.out());
    assertEquals("tcpopt: --port must be 1-65535, not 99999", port.errorLine());
  }

  /** The help's example once said pass-through, which matched nothing: states are PASS_THROUGH underneath. */
  @Test
  void stateFilterTakesTheStateColumnsSpellingAndTheHyphenatedOne() {
    assertEquals(3, run("flows", "--state", "optimized").out().lines().count());
    for (String state : List.of("pass_through", "pass-through", "PASS_THROUGH")) {
      CliRun r = run("flows", "--closed", "--state", state);
      assertEquals(2, r.out().lines().count(), state + ":\n" + r.out());
      assertTrue(r.out().contains("pass_through"), r.out());
    }
  }

  @Test
  void closedFlowsShowTheReason() {
    CliRun r = run("flows", "--closed");
    assertTrue(r.out().lines().skip(1).findFirst().orElseThrow().endsWith("no policy sequence matched"), r.out());
  }

  @Test
  void watchRedrawsInPlace() {
    CliRun r = run("flows", "--watch", "--interval", "0.01", "--count", "2");
    assertEquals(0, r.exitCode(), r.err());
    assertEquals(2, r.out().split("\033\\[H\033\\[2J", -1).length - 1);
    assertEquals(2, run("flows", "--watch", "-o", "json").exitCode());
  }

  @Test
  void nodesTableAndJson() {
    CliRun r = run("nodes");
    assertTrue(r.out().lines().anyMatch(l -> l.matches("branch-1\\s+branch\\s+controller,service-node\\s+127\\.0\\.0\\.1:7800\\s+HEALTHY\\s+12\\.5%\\s+5/10000\\s+\\d+s ago")), r.out());
    CliRun json = run("nodes", "-o", "json");
    assertTrue(json.out().contains("\"roles\": [\n      \"controller\",\n      \"service-node\"\n    ]"), json.out());
  }

  @Test
  void policyApplyGetDiffRollback(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("p.yaml");
    Files.writeString(file, samplePolicy().replace("vpn10-appqoe", "second").replace("default-action: pass-through", "default-action: drop"));
    CliRun diff = run("policy", "diff", "-f", file.toString());
    assertEquals(3, diff.exitCode(), diff.err());
    assertTrue(diff.out().contains("-  name: first\n") && diff.out().contains("+  name: second\n"), diff.out());

    CliRun apply = run("policy", "apply", "-f", file.toString());
    assertEquals("policy applied applied as version 2\n", apply.out());
    assertEquals(0, run("policy", "diff", "-f", file.toString()).exitCode());
    CliRun get = run("policy", "get", "-o", "json");
    assertTrue(get.out().contains("\"version\": 2") && get.out().contains("  default-action: drop\\n"), get.out());
    CliRun rollback = run("policy", "rollback", "--version", "1");
    assertEquals(0, rollback.exitCode(), rollback.err());
    assertTrue(run("policy", "get").out().contains("default-action: pass-through"));
  }

  static String samplePolicy() throws Exception {
    try (var in = OperatorOutputTest.class.getResourceAsStream("/policy-sample.yaml")) {
      return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  @Test
  void policyErrorsAreOneLine(@TempDir Path dir) throws Exception {
    CliRun missing = run("policy", "apply", "-f", dir.resolve("nope.yaml").toString());
    assertEquals(1, missing.exitCode());
    assertTrue(missing.errorLine().endsWith("nope.yaml: no such file"), missing.err());

    Path bad = dir.resolve("bad.yaml");
    Files.writeString(bad, "data-policy: [unclosed\n");
    CliRun syntax = run("policy", "validate", "-f", bad.toString());
    assertEquals(1, syntax.exitCode());
    assertTrue(syntax.errorLine().contains("bad.yaml"), syntax.err());

    Path refused = dir.resolve("refused.yaml");
    Files.writeString(refused, "bogus: 1\n");
    CliRun invalid = run("policy", "validate", "-f", refused.toString());
    assertEquals(1, invalid.exitCode());
    assertFalse(invalid.err().contains("Exception"), invalid.err());
    assertTrue(invalid.errorLine().startsWith("tcpopt: " + refused + ": bogus: unknown setting"), invalid.err());
  }
}
