package io.tcpopt.servicenode.intercept.transparent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TproxyRulesTest {
  private String namespace;

  @AfterEach
  void deleteNamespace() {
    if (namespace != null) {
      new Commands(List.of()).run(null, "ip", "netns", "del", namespace);
    }
  }

  @Test
  void scriptReplacesTheTableAndDivertsOnlyMatchingFlows() {
    String script = TproxyRules.nftScript(7900, 1, List.of("198.18.1.0/24"), List.of("198.19.1.7/24", "198.19.2.1"));
    assertTrue(script.startsWith("add table ip tcpopt\ndelete table ip tcpopt\ntable ip tcpopt {"), script);
    assertTrue(script.contains("type filter hook prerouting priority mangle;"), script);
    assertTrue(script.contains("meta l4proto tcp socket transparent 1 meta mark set 0x1 accept"), script);
    assertTrue(script.contains("fib daddr type local accept"), script);
    assertTrue(script.contains("meta l4proto tcp ip saddr { 198.18.1.0/24 } ip daddr { 198.19.1.0/24, 198.19.2.1/32 } meta mark set 0x1 tproxy to :7900"), script);
  }

  @Test
  void noFiltersMeansAnyForeignDestination() {
    String script = TproxyRules.nftScript(7900, 0x2a, List.of(), List.of());
    assertTrue(script.contains("    meta l4proto tcp meta mark set 0x2a tproxy to :7900\n"), script);
  }

  @Test
  void prefixesAreValidatedBeforeReachingNft() {
    assertThrows(TproxyException.class, () -> TproxyRules.prefixes("source", List.of("198.18.1.0/24 } ; flush ruleset")));
    assertThrows(TproxyException.class, () -> TproxyRules.prefixes("source", List.of("198.18.1.256")));
    assertThrows(TproxyException.class, () -> TproxyRules.prefixes("source", List.of("198.18.1.0/33")));
    TproxyException v6 = assertThrows(TproxyException.class, () -> TproxyRules.prefixes("destination", List.of("2001:db8::/32")));
    assertTrue(v6.getMessage().contains("IPv6"), v6.getMessage());
    assertThrows(TproxyException.class, () -> TproxyRules.nftScript(0, 1, List.of(), List.of()));
    assertThrows(TproxyException.class, () -> TproxyRules.nftScript(7900, 0, List.of(), List.of()));
  }

  @Test
  void installsReplacesAndRemovesExactlyItsRulesInANamespace() {
    Commands ns = privateNamespace();

    TproxyRules first = TproxyRules.install(ns, 7900, 1, 100, List.of("198.18.1.0/24"), List.of("198.19.1.0/24"));
    String table = ns.run(null, "nft", "list", "table", "ip", "tcpopt").stdout();
    assertTrue(table.contains("tproxy to :7900"), table);
    assertTrue(ns.run(null, "ip", "rule", "show").stdout().contains("fwmark 0x1 lookup 100"));
    assertTrue(ns.run(null, "ip", "route", "show", "table", "100").stdout().contains("local default dev lo"));

    // A second install (a restarted node that found stale state) replaces, never duplicates.
    TproxyRules second = TproxyRules.install(ns, 7901, 1, 100, List.of(), List.of());
    String replaced = ns.run(null, "nft", "list", "ruleset").stdout();
    assertEquals(1, count(replaced, "table ip tcpopt"), replaced);
    assertTrue(replaced.contains("tproxy to :7901") && !replaced.contains(":7900"), replaced);
    assertEquals(1, count(ns.run(null, "ip", "rule", "show").stdout(), "fwmark 0x1"));

    // The second found the rule and route present: closing it removes only its nft table.
    second.close();
    assertFalse(ns.run(null, "nft", "list", "ruleset").stdout().contains("tcpopt"));
    assertTrue(ns.run(null, "ip", "rule", "show").stdout().contains("fwmark 0x1 lookup 100"));

    first.close();
    first.close();
    assertFalse(ns.run(null, "ip", "rule", "show").stdout().contains("fwmark"));
    assertEquals("", ns.run(null, "ip", "route", "show", "table", "100").stdout().strip());
  }

  @Test
  void aFailedStepRollsBackAndSaysWhy() {
    Commands ns = privateNamespace();
    // Table 253 is the kernel's "default" table: refused before anything is installed.
    TproxyException e = assertThrows(TproxyException.class, () -> TproxyRules.install(ns, 7900, 1, 253, List.of(), List.of()));
    assertTrue(e.getMessage().contains("route table"), e.getMessage());
    assertFalse(ns.run(null, "nft", "list", "ruleset").stdout().contains("tcpopt"));
  }

  private Commands privateNamespace() {
    assumeTrue(TestPrivileges.canCreateNamespaces(), TestPrivileges.reason());
    Commands root = new Commands(List.of());
    NamespaceLab.removeStale(root);
    namespace = "tcpopt-rules-" + ProcessHandle.current().pid();
    Commands.Result r = root.run(null, "ip", "netns", "add", namespace);
    assertTrue(r.ok(), r.why());
    return new Commands(List.of("ip", "netns", "exec", namespace));
  }

  private static int count(String text, String needle) {
    int n = 0;
    for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
      n++;
    }
    return n;
  }
}
