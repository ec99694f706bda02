package io.tcpopt.servicenode.intercept.transparent;

import static io.tcpopt.servicenode.intercept.transparent.NamespaceLab.BRANCH;
import static io.tcpopt.servicenode.intercept.transparent.NamespaceLab.CLIENT;
import static io.tcpopt.servicenode.intercept.transparent.NamespaceLab.DC;
import static io.tcpopt.servicenode.intercept.transparent.NamespaceLab.SERVER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tcpopt.common.netfilter.Commands;
import io.tcpopt.common.testing.NamespacePrivileges;
import io.tcpopt.common.tls.DemoCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Transparent interception in the namespace testbed (root and {@code ip netns} required, else
 * skipped with the reason printed). Every end host and node is its own process inside its
 * namespace; each test builds and removes its own namespaces.
 */
class TransparentInterceptionTest {
  private static final Logger log = LoggerFactory.getLogger(TransparentInterceptionTest.class);
  private static final Duration START = Duration.ofSeconds(60);
  private static final Pattern SHA = Pattern.compile("sha256=([0-9a-f]{64})");
  private static final List<String> QUICK_JVM = List.of("-XX:TieredStopAtLevel=1", "-Xmx128m");
  private static final List<String> NODE_JVM = List.of("-XX:TieredStopAtLevel=1", "-Xmx256m", "-Dio.netty.leakDetection.level=paranoid");
  /** Dual-stack JVMs, as {@code ./tcpopt} runs them: IPv6 sockets that take IPv4 too. */
  private static final List<String> DUAL_STACK = List.of("-Djava.net.preferIPv4Stack=false");
  private static final int FLOWS = 50;
  /** The examples' pool: {@code wan.connections: 1}, one pipe per peer, and its express connection. */
  private static final int POOL = 2;

  @TempDir Path dir;

  private NamespaceLab lab;

  @BeforeEach
  void requireRoot() {
    assumeTrue(NamespacePrivileges.canCreateNamespaces(), NamespacePrivileges.reason());
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
    ChildProcess server = server();
    ChildProcess probe = probe("probe");

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

  @Test
  void aKilledNodeTakesItsInterceptionWithItAndARestartInstallsItAgain() throws Exception {
    lab = NamespaceLab.create("kill");
    ChildProcess server = server();
    ChildProcess probe = probe("probe");
    assertTrue(lab.exec(BRANCH, "ip", "rule", "show").stdout().contains("fwmark 0x1 lookup 100 proto 149"));

    probe.kill();
    long killed = System.nanoTime();
    long tableGone = awaitGone(() -> lab.exec(BRANCH, "nft", "list", "ruleset").stdout().contains("tcpopt"));
    long routingGone = awaitGone(() -> lab.exec(BRANCH, "ip", "rule", "show").stdout().contains("fwmark")
        || !lab.exec(BRANCH, "ip", "route", "show", "table", "100").stdout().isBlank());
    log.info("after SIGKILL: nftables table gone in {} ms, ip rule and route in {} ms",
        (tableGone - killed) / 1_000_000, (routingGone - killed) / 1_000_000);

    // Nothing of the dead node remains in the path: the client reaches the real server.
    ChildProcess direct = lab.java(CLIENT, "client-direct", DigestTool.class, QUICK_JVM, "client", "198.19.1.2", "5201", "1", "65536");
    assertEquals("DONE ok=1 failed=0", direct.awaitLine(l -> l.startsWith("DONE"), START), () -> String.join("\n", direct.lines()));
    assertEquals(digests(direct.lines(), "FLOW"), awaitDigests(server, 1));

    // A restarted node installs its interception again.
    ChildProcess again = probe("probe-again");
    ChildProcess client = lab.java(CLIENT, "client", DigestTool.class, QUICK_JVM, "client", "198.19.1.2", "5201", "1", "65536");
    assertEquals("DONE ok=1 failed=0", client.awaitLine(l -> l.startsWith("DONE"), START), () -> String.join("\n", client.lines()));
    again.awaitLine(l -> l.startsWith("ORIGINAL local=198.19.1.2:5201"), START);
  }

  /** The echo server, listening. */
  private ChildProcess server() throws Exception {
    ChildProcess server = lab.java(SERVER, "server", DigestTool.class, QUICK_JVM, "server", "5201");
    server.awaitLine(l -> l.startsWith("LISTENING"), START);
    return server;
  }

  /** A transparent listener with the rules installed in the branch, for 198.18.1.0/24 to 198.19.1.0/24. */
  private ChildProcess probe(String name) throws Exception {
    ChildProcess probe = lab.java(BRANCH, name, TransparentProbe.class, QUICK_JVM, "7900", "198.18.1.0/24", "198.19.1.0/24");
    probe.awaitLine(l -> l.equals("READY"), START);
    return probe;
  }

  /** Polls {@code present} until it turns false (bounded: 10 s); returns System.nanoTime() then. */
  private static long awaitGone(java.util.function.BooleanSupplier present) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (present.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("still present 10 s after the node was killed");
      }
      Thread.sleep(5);
    }
    return System.nanoTime();
  }

  @Test
  void branchAndDcNodesOptimizeTransparentlyOverTheirWarmPool() throws Exception {
    lab = NamespaceLab.create("pair");
    DemoCertificates.generate(dir.resolve("certs"), List.of("branch-1", "dc-1"));
    Path branchConfig = testbedConfig("branch.yaml");
    Path dcConfig = testbedConfig("dc.yaml");

    // All three start at once (the branch redials until the DC listens): JVM start-up dominates.
    ChildProcess dc = lab.java(DC, "dc-node", NodeMain.class, NODE_JVM, dcConfig.toString());
    ChildProcess branch = lab.java(BRANCH, "branch-node", NodeMain.class, NODE_JVM, branchConfig.toString());
    ChildProcess server = lab.java(SERVER, "server", DigestTool.class, QUICK_JVM, "server", "5201");
    dc.awaitLine(l -> l.startsWith("READY"), START);
    branch.awaitLine(l -> l.startsWith("READY"), START);
    server.awaitLine(l -> l.startsWith("LISTENING"), START);
    String sessions = poll(branch, "sessions", l -> l.contains("peer=dc-1 up=" + POOL + " configured=" + POOL));
    assertTrue(sessions.contains("cc=bbr") && sessions.contains("express=1"), sessions);
    // The DC learnt the branch from HELLO and tuned the accepted connections too.
    String inbound = poll(dc, "sessions", l -> l.contains("peer=branch-1 up=" + POOL));
    assertTrue(inbound.contains("cc=bbr"), inbound);

    ChildProcess client = lab.java(CLIENT, "client", DigestTool.class, QUICK_JVM, "client", "198.19.1.2", "5201", String.valueOf(FLOWS), "262144", "hold");
    assertEquals("HOLDING " + FLOWS, client.awaitLine(l -> l.startsWith("HOLDING"), Duration.ofSeconds(90)), () -> String.join("\n", client.lines()));

    // 50 client flows are terminated at the branch (their original destination as local address)
    // and all ride the same warm pool (its one connection for bulk, its express one).
    List<String> wan = established(BRANCH, "src", "198.18.0.1", "dst", "198.18.0.2");
    assertEquals(POOL, wan.size(), () -> String.join("\n", wan));
    assertEquals(FLOWS, established(BRANCH, "src", "198.19.1.2:5201").size());
    assertEquals(FLOWS, established(DC, "dst", "198.19.1.2:5201").size());
    // Client-address transparency: the server's own view of its peers is the client, 198.18.1.2,
    // although every connection was made by the DC node (from the client's address, IP_TRANSPARENT).
    List<String> seenByServer = established(SERVER, "src", "198.19.1.2:5201");
    assertEquals(FLOWS, seenByServer.size(), () -> String.join("\n", seenByServer));
    assertTrue(seenByServer.stream().allMatch(l -> peerOf(l).startsWith("198.18.1.2:")), () -> String.join("\n", seenByServer));
    assertEquals(FLOWS, established(DC, "src", "198.18.1.2", "dst", "198.19.1.2:5201").size(), "the DC holds them, from the client's address");

    client.send("release");
    assertEquals("DONE ok=" + FLOWS + " failed=0", client.awaitLine(l -> l.startsWith("DONE"), START), () -> String.join("\n", client.lines()));
    assertEquals(digests(client.lines(), "FLOW"), awaitDigests(server, FLOWS));
    assertEquals(FLOWS, digests(client.lines(), "FLOW").size());
    // Every connection the server accepted came from the client's address (made by the DC node).
    assertTrue(server.lines().stream().filter(l -> l.startsWith("CONN")).allMatch(l -> l.contains("remote=198.18.1.2:")),
        () -> String.join("\n", server.lines()));
    poll(branch, "flows", l -> l.contains("optimized=" + FLOWS + " pass-through=0 dropped=0"));

    branch.send("quit");
    branch.awaitLine(l -> l.equals("CLOSED"), START);
    assertFalse(lab.exec(BRANCH, "nft", "list", "ruleset").stdout().contains("tcpopt"), "the branch removes its rules at stop");
    dc.send("quit");
    dc.awaitLine(l -> l.equals("CLOSED"), START);
    assertFalse(lab.exec(DC, "nft", "list", "ruleset").stdout().contains("tcpopt"), "the DC removes its return path at stop");
    assertFalse(lab.exec(DC, "ip", "rule", "show").stdout().contains("fwmark"));
    for (ChildProcess node : List.of(branch, dc)) {
      assertFalse(node.stderr().contains("LEAK:"), () -> node.name() + " leaked buffers:\n" + node.stderr());
    }
  }

  @Test
  void anIpv6ClientIsOptimizedTransparentlyToAnIpv6ServerOverAnIpv6Wan() throws Exception {
    lab = NamespaceLab.create("pair6");
    DemoCertificates.generate(dir.resolve("certs"), List.of("branch-1", "dc-1"));
    // The example testbed configs (IPv4 and IPv6 prefixes side by side), their WAN moved to IPv6.
    Path branchConfig = ipv6Wan(testbedConfig("branch.yaml"));
    Path dcConfig = ipv6Wan(testbedConfig("dc.yaml"));
    List<String> nodeJvm = concat(NODE_JVM, DUAL_STACK);
    List<String> hostJvm = concat(QUICK_JVM, DUAL_STACK);

    ChildProcess dc = lab.java(DC, "dc-node", NodeMain.class, nodeJvm, dcConfig.toString());
    ChildProcess branch = lab.java(BRANCH, "branch-node", NodeMain.class, nodeJvm, branchConfig.toString());
    ChildProcess server = lab.java(SERVER, "server", DigestTool.class, hostJvm, "server", "5201");
    dc.awaitLine(l -> l.startsWith("READY"), START);
    branch.awaitLine(l -> l.startsWith("READY"), START);
    server.awaitLine(l -> l.startsWith("LISTENING"), START);
    poll(branch, "sessions", l -> l.contains("peer=dc-1 up=" + POOL + " configured=" + POOL));
    List<String> wan = established(BRANCH, "src", "[2001:2:0:1800::1]", "dst", "[2001:2:0:1800::2]:7800");
    assertEquals(POOL, wan.size(), () -> "the warm pool runs over IPv6:\n" + String.join("\n", wan));

    int v6Flows = 20;
    ChildProcess client = lab.java(CLIENT, "client6", DigestTool.class, hostJvm, "client", NamespaceLab.SERVER_V6, "5201", String.valueOf(v6Flows),
        "262144", "hold");
    assertEquals("HOLDING " + v6Flows, client.awaitLine(l -> l.startsWith("HOLDING"), Duration.ofSeconds(90)), () -> String.join("\n", client.lines()));
    // Intercepted at the branch (the original IPv6 destination as local address), connected from
    // the client's own IPv6 address by the DC: the server's view of every peer is the client.
    assertEquals(v6Flows, established(BRANCH, "src", "[" + NamespaceLab.SERVER_V6 + "]:5201").size());
    List<String> seenByServer = established(SERVER, "src", "[" + NamespaceLab.SERVER_V6 + "]:5201");
    assertEquals(v6Flows, seenByServer.size(), () -> String.join("\n", seenByServer));
    assertTrue(seenByServer.stream().allMatch(l -> peerOf(l).startsWith("[" + NamespaceLab.CLIENT_V6 + "]:")), () -> String.join("\n", seenByServer));
    client.send("release");
    assertEquals("DONE ok=" + v6Flows + " failed=0", client.awaitLine(l -> l.startsWith("DONE"), START), () -> String.join("\n", client.lines()));
    assertEquals(digests(client.lines(), "FLOW"), awaitDigests(server, v6Flows));
    assertEquals(v6Flows, digests(client.lines(), "FLOW").size());

    // IPv4 flows through the same dual-stack nodes, beside the IPv6 ones.
    ChildProcess client4 = lab.java(CLIENT, "client4", DigestTool.class, hostJvm, "client", "198.19.1.2", "5201", "5", "65536");
    assertEquals("DONE ok=5 failed=0", client4.awaitLine(l -> l.startsWith("DONE"), START), () -> String.join("\n", client4.lines()));
    assertTrue(awaitDigests(server, v6Flows + 5).containsAll(digests(client4.lines(), "FLOW")));
    List<String> conns = server.lines().stream().filter(l -> l.startsWith("CONN")).toList();
    assertEquals(v6Flows, conns.stream().filter(l -> l.contains("remote=[" + NamespaceLab.CLIENT_V6 + "]:")).count(), () -> String.join("\n", conns));
    assertEquals(5, conns.stream().filter(l -> l.contains("remote=198.18.1.2:")).count(), () -> String.join("\n", conns));
    poll(branch, "flows", l -> l.contains("optimized=" + (v6Flows + 5) + " pass-through=0 dropped=0"));

    branch.send("quit");
    branch.awaitLine(l -> l.equals("CLOSED"), START);
    assertFalse(lab.exec(BRANCH, "ip", "-6", "rule", "show").stdout().contains("fwmark"), "the branch removes its IPv6 routing at stop");
    dc.send("quit");
    dc.awaitLine(l -> l.equals("CLOSED"), START);
    for (ChildProcess node : List.of(branch, dc)) {
      assertFalse(node.stderr().contains("LEAK:"), () -> node.name() + " leaked buffers:\n" + node.stderr());
    }
  }

  /** The config with its WAN addresses (listen, peer) replaced by their IPv6 counterparts. */
  private static Path ipv6Wan(Path config) throws Exception {
    String yaml = Files.readString(config)
        .replace("198.18.0.1:7800", "'[2001:2:0:1800::1]:7800'")
        .replace("198.18.0.2:7800", "'[2001:2:0:1800::2]:7800'");
    Files.writeString(config, yaml);
    return config;
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> out = new java.util.ArrayList<>(a);
    out.addAll(b);
    return out;
  }

  /** The example testbed config with its certificate paths pointing at this test's certificates. */
  private Path testbedConfig(String name) throws Exception {
    Path base = Path.of(System.getProperty("basedir", System.getProperty("user.dir")));
    Path example = base.resolveSibling("deploy").resolve("examples/testbed").resolve(name);
    if (!Files.exists(example)) {
      example = base.resolve("deploy/examples/testbed").resolve(name);
    }
    // A 1 MiB stream window: FLOWS held flows, each reserving its window, fit the buffer budget of a 256 MiB JVM.
    String yaml = Files.readString(example).replace("deploy/examples/testbed/certs/", dir.resolve("certs") + "/")
        .replace("    keepalive: 5s\n", "    keepalive: 5s\n    stream-window: 1MiB\n");
    Path out = dir.resolve(name);
    Files.writeString(out, yaml);
    return out;
  }

  /** Sends {@code command} until the answer matches (bounded), returning the matching line. */
  private static String poll(ChildProcess node, String command, java.util.function.Predicate<String> match) throws Exception {
    long deadline = System.nanoTime() + START.toNanos();
    String last = null;
    String prefix = command.toUpperCase();
    while (System.nanoTime() < deadline) {
      int before = node.lines().size();
      node.send(command);
      long answerBy = System.nanoTime() + Duration.ofSeconds(5).toNanos();
      while (node.lines().size() <= before && System.nanoTime() < answerBy) {
        Thread.sleep(10);
      }
      List<String> lines = node.lines();
      for (int i = lines.size() - 1; i >= before; i--) {
        if (lines.get(i).startsWith(prefix)) {
          last = lines.get(i);
          break;
        }
      }
      if (last != null && match.test(last)) {
        return last;
      }
      Thread.sleep(200);
    }
    throw new AssertionError(node.name() + ": '" + command + "' never answered as expected; last answer: " + last + "\nstderr:\n" + node.stderr());
  }

  /** Established TCP sockets in a namespace matching an ss filter such as {@code src 198.18.0.1}. */
  private List<String> established(String role, String... filter) {
    List<String> argv = new java.util.ArrayList<>(List.of("ss", "-tnH", "state", "established"));
    argv.addAll(List.of(filter));
    Commands.Result r = lab.exec(role, argv.toArray(String[]::new));
    assertTrue(r.ok(), r.why());
    return r.stdout().lines().filter(l -> !l.isBlank()).toList();
  }

  /** The peer address:port column of an {@code ss -tnH} line. */
  private static String peerOf(String ssLine) {
    String[] columns = ssLine.trim().split("\\s+");
    return columns[columns.length - 1];
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
