package io.tcpopt.servicenode.intercept.transparent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tcpopt.common.netfilter.Commands;
import io.tcpopt.common.testing.NamespacePrivileges;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
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
  void tableDivertsOnlyMatchingFlows() {
    String body = String.join("; ", TproxyRules.tableBody(diversion(List.of("198.18.1.0/24"), List.of("198.19.1.0/24", "198.19.2.1")), 1));
    assertTrue(body.startsWith("chain prerouting {; type filter hook prerouting priority mangle; policy accept;"), body);
    assertTrue(body.contains("meta l4proto tcp socket transparent 1 meta mark set 0x1 accept"), body);
    assertTrue(body.contains("fib daddr type local accept"), body);
    assertTrue(body.contains("meta l4proto tcp tcp flags & (syn | ack) == syn ip saddr { 198.18.1.0/24 } ip daddr { 198.19.1.0/24, 198.19.2.1/32 } meta mark set 0x1 tproxy ip to :7900"), body);
    assertFalse(body.contains("ip6"), "no IPv6 prefix named on a side that names prefixes: no IPv6 diversion");
  }

  @Test
  void eachFamilyIsDivertedOnItsOwnPrefixes() {
    List<String> body = TproxyRules.tableBody(diversion(List.of("198.18.1.0/24", "2001:2:18:1::/64"), List.of("2001:2:19:1::/64", "198.19.1.0/24")), 1);
    assertTrue(body.contains("meta l4proto tcp tcp flags & (syn | ack) == syn ip saddr { 198.18.1.0/24 } ip daddr { 198.19.1.0/24 } meta mark set 0x1 tproxy ip to :7900"), body::toString);
    assertTrue(body.contains("meta l4proto tcp tcp flags & (syn | ack) == syn ip6 saddr { 2001:2:18:1::/64 } ip6 daddr { 2001:2:19:1::/64 } meta mark set 0x1 tproxy ip6 to :7900"),
        body::toString);
    // Only destinations named, IPv6 only: IPv4 flows are not diverted.
    List<String> v6only = TproxyRules.tableBody(diversion(List.of(), List.of("2001:2:19:1::/64")), 1);
    assertEquals(1, v6only.stream().filter(l -> l.contains("tproxy")).count(), v6only::toString);
  }

  @Test
  void noFiltersMeansAnyForeignDestinationOfEitherFamily() {
    List<String> body = TproxyRules.tableBody(diversion(List.of(), List.of()), 0x2a);
    assertTrue(body.contains("meta l4proto tcp tcp flags & (syn | ack) == syn meta mark set 0x2a tproxy to :7900"), body::toString);
  }

  @Test
  void theReturnPathAloneMarksOnlyTransparentSockets() {
    List<String> body = TproxyRules.tableBody(null, 1);
    assertTrue(body.contains("meta l4proto tcp socket transparent 1 meta mark set 0x1 accept"), body::toString);
    assertTrue(body.stream().noneMatch(l -> l.contains("tproxy")), body::toString);
  }

  /**
   * The unit's ExecStopPost is fail-to-wire's last line (docs/reliability.md): it once deleted
   * {@code table ip tcpopt}, which the node never creates, and no IPv6 rule or route.
   */
  @Test
  void theSystemdUnitRemovesWhatTheExitGuardRemoves() throws Exception {
    Set<String> unit = Files.readAllLines(Path.of("..", "deploy", "systemd", "tcpopt@.service")).stream()
        .filter(l -> l.startsWith("ExecStopPost=-/usr/sbin/"))
        .map(l -> l.substring("ExecStopPost=-/usr/sbin/".length()))
        .collect(Collectors.toSet());
    // The node's firewall mark and routing table (servicenode.TransparentRules).
    Set<String> guard = TproxyRules.removal(1, 100).stream().map(c -> String.join(" ", c)).collect(Collectors.toSet());
    assertEquals(guard, unit);
  }

  @Test
  void prefixesAreValidatedBeforeReachingNft() {
    assertThrows(TproxyException.class, () -> TproxyRules.prefixes("source", List.of("198.18.1.0/24 } ; flush ruleset")));
    assertThrows(TproxyException.class, () -> TproxyRules.prefixes("source", List.of("198.18.1.256")));
    assertThrows(TproxyException.class, () -> TproxyRules.prefixes("source", List.of("198.18.1.0/33")));
    assertThrows(TproxyException.class, () -> TproxyRules.prefixes("source", List.of("198.19.1.7/24")));
    assertThrows(TproxyException.class, () -> TproxyRules.prefixes("destination", List.of("2001:db8::/129")));
    assertThrows(TproxyException.class, () -> TproxyRules.prefixes("destination", List.of("2001:db8::; flush ruleset")));
    assertEquals("2001:2:19:1::/64", TproxyRules.prefixes("destination", List.of("2001:2:19:1:0::/64")).get(0).toString());
    assertThrows(TproxyException.class, () -> TproxyRules.tableBody(diversion(0), 1));
    assertThrows(TproxyException.class, () -> TproxyRules.tableBody(diversion(7900), 0));
  }

  private static TproxyRules.Diversion diversion(List<String> sources, List<String> destinations) {
    return new TproxyRules.Diversion(7900, sources, destinations);
  }

  private static TproxyRules.Diversion diversion(int port) {
    return new TproxyRules.Diversion(port, List.of(), List.of());
  }

  @Test
  void installsAKernelOwnedTableAndRemovesExactlyItsRules() {
    Commands ns = privateNamespace();

    TproxyRules first = TproxyRules.install(ns, diversion(List.of("198.18.1.0/24", "2001:2:18:1::/64"), List.of()), 1, 100);
    String table = ns.run(null, "nft", "list", "table", "inet", "tcpopt").stdout();
    assertTrue(table.contains("tproxy ip to :7900") && table.contains("tproxy ip6 to :7900") && table.contains("flags owner"), table);
    assertNull(first.failToWire(), "this kernel owns the table: nothing to report");
    assertTrue(ns.run(null, "ip", "rule", "show").stdout().contains("fwmark 0x1 lookup 100 proto 149"));
    assertTrue(ns.run(null, "ip", "route", "show", "table", "100").stdout().contains("local default dev lo proto 149"));

    // Suspended (drain) and resumed through the owning nft: still owned, nobody else could.
    first.interception(false);
    String suspended = ns.run(null, "nft", "list", "table", "inet", "tcpopt").stdout();
    assertFalse(suspended.contains("tproxy"), suspended);
    assertTrue(suspended.contains("flags owner") && suspended.contains("socket transparent 1"), suspended);
    first.interception(false);
    first.interception(true);
    assertTrue(ns.run(null, "nft", "list", "table", "inet", "tcpopt").stdout().contains("tproxy"));
    assertTrue(ns.run(null, "ip", "-6", "rule", "show").stdout().contains("fwmark 0x1 lookup 100 proto 149"));
    assertTrue(ns.run(null, "ip", "-6", "route", "show", "table", "100").stdout().contains("local default dev lo proto 149"));

    // Nobody else may replace or delete a table with a live owner: a second node is refused.
    TproxyException twice = assertThrows(TproxyException.class, () -> TproxyRules.install(ns, diversion(7901), 1, 100));
    assertTrue(twice.getMessage().contains("Operation not permitted"), twice.getMessage());
    Commands.Result delete = ns.run(null, "nft", "delete", "table", "inet", "tcpopt");
    assertFalse(delete.ok(), "an owned table cannot be deleted by another process");
    assertTrue(ns.run(null, "ip", "rule", "show").stdout().contains("fwmark 0x1 lookup 100 proto 149"), "the refused install removed nothing");

    first.close();
    first.close();
    assertFalse(ns.run(null, "nft", "list", "ruleset").stdout().contains("tcpopt"));
    assertFalse(ns.run(null, "ip", "rule", "show").stdout().contains("fwmark"));
    assertEquals("", ns.run(null, "ip", "route", "show", "table", "100").stdout().strip());
    assertFalse(ns.run(null, "ip", "-6", "rule", "show").stdout().contains("fwmark"));
    assertEquals("", ns.run(null, "ip", "-6", "route", "show", "table", "100").stdout().strip());
  }

  @Test
  void replacesLeftoversOfAnEarlierRunAndLeavesOthersRulesAlone() {
    Commands ns = privateNamespace();
    // What a node killed together with its guard leaves: a table without owner, tagged rule and route.
    assertTrue(ns.run("table inet tcpopt { chain prerouting { type filter hook prerouting priority mangle; }; }\n", "nft", "-f", "-").ok());
    assertTrue(ns.run(null, "ip", "rule", "add", "fwmark", "1", "lookup", "100", "proto", "149").ok());
    assertTrue(ns.run(null, "ip", "route", "add", "local", "0.0.0.0/0", "dev", "lo", "table", "100", "proto", "149").ok());

    TproxyRules rules = TproxyRules.install(ns, diversion(7901), 1, 100);
    String ruleset = ns.run(null, "nft", "list", "ruleset").stdout();
    assertEquals(1, count(ruleset, "table inet tcpopt"), ruleset);
    assertTrue(ruleset.contains("flags owner") && ruleset.contains("tproxy to :7901"), ruleset);
    assertEquals(1, count(ns.run(null, "ip", "rule", "show").stdout(), "fwmark 0x1"), "adopted, not duplicated");
    rules.close();
    assertFalse(ns.run(null, "nft", "list", "ruleset").stdout().contains("tcpopt"));
    assertFalse(ns.run(null, "ip", "rule", "show").stdout().contains("fwmark"), "the adopted leftovers are removed at close");
    assertEquals("", ns.run(null, "ip", "route", "show", "table", "100").stdout().strip());

    // A rule without tcpopt's tag is someone else's: used, never removed.
    assertTrue(ns.run(null, "ip", "rule", "add", "fwmark", "1", "lookup", "100").ok());
    TproxyRules.install(ns, diversion(7902), 1, 100).close();
    assertTrue(ns.run(null, "ip", "rule", "show").stdout().contains("fwmark 0x1 lookup 100"));
  }

  @Test
  void withoutTableOwnershipItSaysSoAndStillRemovesEverything() {
    privateNamespace();
    // A kernel without the owner flag, simulated: the flag turns into a syntax error on the way to nft.
    Commands oldKernel = new Commands(List.of("ip", "netns", "exec", namespace, "sh", "-c",
        "sed -u 's/flags owner;/flags unsupported;/' | \"$0\" \"$@\""));
    TproxyRules rules = TproxyRules.install(oldKernel, diversion(7900), 1, 100);
    assertTrue(rules.failToWire().startsWith("kernel lacks nftables table ownership"), rules.failToWire());
    rules.close();
    assertFalse(oldKernel.run(null, "nft", "list", "ruleset").stdout().contains("tcpopt"));
    assertFalse(oldKernel.run(null, "ip", "rule", "show").stdout().contains("fwmark"));
  }

  @Test
  void aFailedStepRollsBackAndSaysWhy() {
    Commands ns = privateNamespace();
    // Table 253 is the kernel's "default" table: refused before anything is installed.
    TproxyException e = assertThrows(TproxyException.class, () -> TproxyRules.install(ns, diversion(7900), 1, 253));
    assertTrue(e.getMessage().contains("route table"), e.getMessage());
    assertFalse(ns.run(null, "nft", "list", "ruleset").stdout().contains("tcpopt"));
  }

  private Commands privateNamespace() {
    assumeTrue(NamespacePrivileges.canCreateNamespaces(), NamespacePrivileges.reason());
    Commands root = new Commands(List.of());
    NamespaceLab.removeStale(root);
    namespace = "tcpopt-rules-" + ProcessHandle.current().pid();
    Commands.Result r = root.run(null, "ip", "netns", "add", namespace);
    assertTrue(r.ok(), r.why());
    Commands ns = new Commands(List.of("ip", "netns", "exec", namespace));
    assertTrue(ns.run(null, "ip", "link", "set", "lo", "up").ok(), "IPv6 local routes need lo up");
    return ns;
  }

  private static int count(String text, String needle) {
    int n = 0;
    for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
      n++;
    }
    return n;
  }
}
