package io.tcpopt.servicenode.intercept.transparent;

import static io.tcpopt.servicenode.intercept.transparent.NamespaceLab.BRANCH;
import static io.tcpopt.servicenode.intercept.transparent.NamespaceLab.CLIENT;
import static io.tcpopt.servicenode.intercept.transparent.NamespaceLab.SERVER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Transparent interception in the namespace testbed (root and {@code ip netns} required, else
 * skipped with the reason printed). Every end host and node is its own process inside its
 * namespace; each test builds and removes its own namespaces.
 */
class TransparentInterceptionTest {
  private static final Duration START = Duration.ofSeconds(30);
  private static final Pattern SHA = Pattern.compile("sha256=([0-9a-f]{64})");
  private static final List<String> QUICK_JVM = List.of("-XX:TieredStopAtLevel=1", "-Xmx128m");

  private NamespaceLab lab;

  @BeforeEach
  void requireRoot() {
    assumeTrue(TestPrivileges.canCreateNamespaces(), TestPrivileges.reason());
  }

  @AfterEach
  void tearDown() {
    if (lab != null) {
      lab.close();
    }
  }

  @Test
  void tproxyRulesDivertClientFlowsToATransparentListenerAndLeaveNoTrace() throws Exception {
    lab = NamespaceLab.create("tproxy");
    ChildProcess server = lab.java(SERVER, "server", DigestTool.class, QUICK_JVM, "server", "5201");
    server.awaitLine(l -> l.startsWith("LISTENING"), START);
    ChildProcess probe = lab.java(BRANCH, "probe", TransparentProbe.class, QUICK_JVM, "7900", "198.18.1.0/24", "198.19.1.0/24");
    probe.awaitLine(l -> l.equals("READY"), START);

    ChildProcess client = lab.java(CLIENT, "client", DigestTool.class, QUICK_JVM, "client", "198.19.1.2", "5201", "5", "262144");
    assertEquals("DONE ok=5 failed=0", client.awaitLine(l -> l.startsWith("DONE"), START), () -> String.join("\n", client.lines()));

    // The branch's listener saw the original destination; the real server saw nothing.
    long intercepted = probe.lines().stream().filter(l -> l.matches("ORIGINAL local=198\\.19\\.1\\.2:5201 remote=198\\.18\\.1\\.2:\\d+")).count();
    assertEquals(5, intercepted, () -> String.join("\n", probe.lines()));
    assertTrue(server.lines().stream().noneMatch(l -> l.startsWith("CONN")), () -> String.join("\n", server.lines()));

    probe.send("quit");
    probe.awaitLine(l -> l.equals("CLOSED"), START);
    assertEquals(0, probe.awaitExit(START));
    assertFalse(lab.exec(BRANCH, "nft", "list", "ruleset").stdout().contains("tcpopt"));
    assertFalse(lab.exec(BRANCH, "ip", "rule", "show").stdout().contains("fwmark"));
    assertEquals("", lab.exec(BRANCH, "ip", "route", "show", "table", "100").stdout().strip());

    // With the rules gone the same flows are routed to the real server, untouched.
    ChildProcess direct = lab.java(CLIENT, "client-direct", DigestTool.class, QUICK_JVM, "client", "198.19.1.2", "5201", "3", "65536");
    assertEquals("DONE ok=3 failed=0", direct.awaitLine(l -> l.startsWith("DONE"), START), () -> String.join("\n", direct.lines()));
    assertEquals(digests(direct.lines(), "FLOW"), awaitDigests(server, 3));
    assertTrue(server.lines().stream().filter(l -> l.startsWith("CONN")).allMatch(l -> l.contains("remote=198.18.1.2:")),
        () -> String.join("\n", server.lines()));
  }

  /** The SHA-256 digests on lines starting with {@code kind}. */
  static Set<String> digests(List<String> lines, String kind) {
    Set<String> out = new TreeSet<>();
    for (String line : lines) {
      Matcher m = SHA.matcher(line);
      if (line.startsWith(kind) && m.find()) {
        out.add(m.group(1));
      }
    }
    return out;
  }

  /** Waits until the server has logged {@code n} connections, then returns their digests. */
  static Set<String> awaitDigests(ChildProcess server, int n) throws InterruptedException {
    long deadline = System.nanoTime() + START.toNanos();
    while (System.nanoTime() < deadline) {
      Set<String> d = digests(server.lines(), "CONN");
      if (d.size() >= n) {
        return d;
      }
      Thread.sleep(20);
    }
    return digests(server.lines(), "CONN");
  }
}
