package io.tcpopt.bench.chaos;

import static io.tcpopt.bench.chaos.NodeKillChaosTest.awaitTrue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.bench.TestbedPrerequisites;
import io.tcpopt.bench.TestbedRun;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chaos scenario 10 (issue 8): the control plane against intruders and partitions, with three
 * real controllers from the packaged jar (one Hazelcast cluster, TLS gRPC, operator token and
 * operator CA, member allow-lists) in namespaces of their own on one bridge, 198.18.50.0/24, and
 * a rogue namespace holding certificates from the same CA. Asserted, in order:
 *
 * <ol>
 *   <li>a rogue controller with the cluster name and the member list cannot join (it stays a
 *       cluster of one, the three stay three, its policy never reaches them), and a Hazelcast
 *       client can connect neither from the rogue's network nor from a member's own host;
 *   <li>a node certificate cannot apply a policy nor register as another node;
 *   <li>an alias bomb, deep nesting and 2 and 4 MiB of prefixes are refused within seconds, and the
 *       controller (192 MiB heap) keeps answering;
 *   <li>an apply and a rollback racing on the same active version: one wins, the other is refused
 *       with the reason;
 *   <li>a 2|1 split (member ports blocked with nft in one namespace): the lone member refuses
 *       policy writes, the majority applies; after the heal all three hold one identical history.
 * </ol>
 *
 * Needs Linux, root, network namespaces, nft and the jar; aborts with the missing piece otherwise.
 */
class ControlPlaneChaosTest {
  private static final Logger log = LoggerFactory.getLogger(ControlPlaneChaosTest.class);
  /** Unique per JVM, so two suites running at once on one machine never share namespaces. */
  private static final String PREFIX = "tcpopt-cp-" + ProcessHandle.current().pid() + "-";
  private static final String TOKEN = "chaos-control-plane-token";
  private static final String CLUSTER = "chaos-cp";
  private static final List<String> CONTROLLERS = List.of("a", "b", "c");
  private static final Pattern STATUS = Pattern.compile("STATUS members=(\\d+) quorum=(\\w+) policy=(\\d+)");
  private static final Pattern APPLIED = Pattern.compile("APPLIED version=(\\d+) ms=(\\d+)");

  private final TestbedRun run = TestbedRun.open(PREFIX);
  private BufferedReader probeOut;
  private OutputStream probeIn;

  @TempDir Path dir;

  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void nonMembersNodeCertificatesHostileYamlRacesAndASplitLeaveOnePolicyHistory() throws Exception {
    try (run) {
      TestbedPrerequisites.require("chaos scenario 10", "namespaces, nftables", List.of("ip", "nft"), run.bench(), PREFIX + "probe");
      Path jar = run.requireJar("chaos scenario 10");
      network();
      certificates(jar);
      for (String c : CONTROLLERS) {
        startController(jar, c, "198.18.50." + (c.charAt(0) - 'a' + 1), 2, "");
      }
      // A rogue controller (same cluster name, same member list, a same-CA certificate), started with
      // the members and judged after steps 2-4: its Hazelcast tries to join meanwhile.
      Path rogueLog = startController(jar, "rogue", "198.18.50.9", 1, "policy:\n" + Files.readString(policy("rogue-policy")).indent(2));
      long rogueStarted = System.nanoTime();
      startProbe(jar);
      String a = api("a");
      String b = api("b");
      String c = api("c");
      awaitTrue(() -> members(a) == 3 && members(b) == 3 && members(c) == 3, 90, () -> "three controllers in one cluster: "
          + ask("status " + a) + " / " + ask("status " + b) + " / " + ask("status " + c) + logTails());
      log.info("three controllers in one cluster");
      Path one = policy("chaos-one");
      assertTrue(ask("apply " + a + " " + one + " 0").startsWith("APPLIED version=1 "));

      // 1. Non-members: the rogue controller started with the others tried to join all along.
      assertTrue(ask("hazelcast 198.18.50.1:5701 " + CLUSTER).startsWith("REFUSED"), "a Hazelcast client from the rogue's network");
      TestbedRun.Result local = run.inNs(run.ns("a"), 60, Map.of(), "sh", "-c", "echo 'hazelcast 198.18.50.1:5701 " + CLUSTER + "' | "
          + probeCommand(jar));
      assertTrue(local.stdout().contains("\nREFUSED why="), "a Hazelcast client on the member's own host:\n" + local.stdout() + local.stderr());

      // 2. A node certificate: no policy change, no other node's record.
      String nodeApply = ask("node-apply " + a + " " + policy("by-a-node"));
      assertTrue(nodeApply.startsWith("REFUSED code=PERMISSION_DENIED "), nodeApply);
      String impersonate = ask("register " + a + " dc-1");
      assertTrue(impersonate.startsWith("REFUSED code=PERMISSION_DENIED ") && impersonate.contains("may not register as \"dc-1\""), impersonate);
      assertTrue(ask("register " + a + " rogue-1").startsWith("REGISTERED"), "a node registers as itself");

      // 3. Hostile YAML, refused fast; the controller keeps answering.
      for (Path hostile : List.of(aliasBomb(), deepNesting(), prefixes("two-mib.yaml", 2 << 20), prefixes("four-mib.yaml", 4 << 20))) {
        String refused = ask("apply " + a + " " + hostile + " 0");
        log.info("{}: {}", hostile.getFileName(), refused.length() > 200 ? refused.substring(0, 200) : refused);
        Matcher m = Pattern.compile("REFUSED code=(INVALID_ARGUMENT|RESOURCE_EXHAUSTED) ms=(\\d+) ").matcher(refused);
        assertTrue(m.find(), hostile.getFileName() + ": " + refused);
        assertTrue(Long.parseLong(m.group(2)) < 5000, hostile.getFileName() + " took " + m.group(2) + " ms to refuse");
      }
      assertEquals(3, members(a), "the controller still answers");

      // 4. A rollback racing an apply on the same active version: one wins, the other is told.
      long active = policyVersion(a);
      String race = ask("race " + a + " " + policy("chaos-two") + " 1 " + active);
      log.info("race on v{}: {}", active, race);
      assertTrue(race.matches("RACE apply=APPLIED.* rollback=REFUSED_code=ABORTED.*as_expected;_not_applied.*")
          || race.matches("RACE apply=REFUSED_code=ABORTED.*as_expected;_not_applied.* rollback=APPLIED.*"), race);

      // The rogue never got in: Hazelcast gives up joining (the members drop its connections) and
      // stops it, or it runs as a cluster of its own; either way the three stay three, unchanged.
      awaitTrue(() -> TestbedRun.read(rogueLog).contains("Could not join cluster") || TestbedRun.read(rogueLog).contains("running ("), 90,
          () -> "the rogue controller's join ends:\n" + TestbedRun.read(rogueLog));
      log.info("rogue controller after {} ms: {}", (System.nanoTime() - rogueStarted) / 1_000_000,
          TestbedRun.read(rogueLog).contains("running (") ? "running alone" : "refused to start (could not join)");
      if (TestbedRun.read(rogueLog).contains("running (")) {
        assertEquals(1, members(api("rogue")), "the rogue is a cluster of its own");
      }
      assertEquals(3, members(a), "the members admitted nobody");
      String versions = ask("versions " + a);
      assertFalse(versions.contains("rogue-policy"), versions);

      // 5. A 2|1 split: c alone refuses writes, a and b apply; after the heal one history everywhere.
      long split = System.nanoTime();
      nft("c", "table inet chaos_split {\n"
          + "  chain input { type filter hook input priority -20; policy accept; tcp sport 5701 drop; tcp dport 5701 drop; }\n"
          + "  chain output { type filter hook output priority -20; policy accept; tcp sport 5701 drop; tcp dport 5701 drop; }\n"
          + "}\n");
      awaitTrue(() -> members(a) == 2 && members(c) == 1, 60, "the split is seen on both sides");
      log.info("2|1 split seen by both sides after {} ms", (System.nanoTime() - split) / 1_000_000);
      String minority = ask("apply " + c + " " + policy("minority") + " 0");
      assertTrue(minority.startsWith("REFUSED code=FAILED_PRECONDITION ") && minority.contains("minority"), minority);
      String majority = ask("apply " + b + " " + policy("majority") + " " + policyVersion(b));
      assertTrue(APPLIED.matcher(majority).lookingAt(), majority);

      long heal = System.nanoTime();
      nft("c", "delete table inet chaos_split\n");
      awaitTrue(() -> members(c) == 3 && members(a) == 3, 90, "the cluster heals");
      awaitTrue(() -> {
        String va = ask("versions " + a);
        return va.equals(ask("versions " + b)) && va.equals(ask("versions " + c)) && va.contains("=majority:");
      }, 90, () -> "one policy history on all three:\n" + ask("versions " + a) + "\n" + ask("versions " + b) + "\n" + ask("versions " + c));
      log.info("healed and merged after {} ms: {}", (System.nanoTime() - heal) / 1_000_000, ask("versions " + c));
      assertFalse(ask("versions " + c).contains("minority"), "the refused minority write left nothing behind");
      long enforced = policyVersion(a);
      awaitTrue(() -> policyVersion(b) == enforced && policyVersion(c) == enforced, 30, "every controller enforces v" + enforced);
    }
  }

  // ---- the network: one bridge in a hub namespace, one namespace per controller and the rogue ---

  private void network() throws Exception {
    run.onClose(() -> {
      for (String ns : List.of("hub", "a", "b", "c", "rogue")) {
        try {
          run.exec(10, Map.of(), List.of("ip", "netns", "del", run.ns(ns)));
        } catch (Exception e) {
          log.warn("cannot delete namespace {}", run.ns(ns), e);
        }
      }
    });
    must("ip", "netns", "add", run.ns("hub"));
    must("ip", "-n", run.ns("hub"), "link", "add", "br0", "type", "bridge");
    must("ip", "-n", run.ns("hub"), "link", "set", "br0", "up");
    for (String x : List.of("a", "b", "c", "rogue")) {
      String ns = run.ns(x);
      must("ip", "netns", "add", ns);
      must("ip", "-n", ns, "link", "set", "lo", "up");
      must("ip", "link", "add", "v" + x, "netns", run.ns("hub"), "type", "veth", "peer", "name", "eth0", "netns", ns);
      must("ip", "-n", run.ns("hub"), "link", "set", "v" + x, "master", "br0", "up");
      must("ip", "-n", ns, "addr", "add", address(x) + "/24", "dev", "eth0");
      must("ip", "-n", ns, "link", "set", "eth0", "up");
    }
  }

  private static String address(String x) {
    return x.equals("rogue") ? "198.18.50.9" : "198.18.50." + (x.charAt(0) - 'a' + 1);
  }

  private static String api(String x) {
    return address(x) + ":7700";
  }

  private void must(String... command) throws Exception {
    TestbedRun.Result r = run.exec(10, Map.of(), List.of(command));
    assertEquals(0, r.exitCode(), () -> String.join(" ", command) + ": " + r.stderr());
  }

  private void nft(String x, String script) throws Exception {
    Path file = Files.writeString(Files.createTempFile(dir, "nft", ".nft"), script);
    TestbedRun.Result r = run.inNs(run.ns(x), 10, Map.of(), "nft", "-f", file.toString());
    assertEquals(0, r.exitCode(), r.stderr());
  }

  // ---- controllers and the probe ----------------------------------------------------------------

  private void certificates(Path jar) throws Exception {
    TestbedRun.Result r = run.exec(60, Map.of(), List.of("java", TestbedRun.QUICK_JVM, "-jar", jar.toString(), "certs", "--out",
        dir.resolve("certs").toString(), "--nodes", "ctl-a,ctl-b,ctl-c,ctl-rogue,rogue-1", "--operators", "alice"));
    assertEquals(0, r.exitCode(), r.stderr());
    Files.writeString(Files.createDirectories(dir.resolve("secrets")).resolve("token"), TOKEN + "\n");
  }

  /** Starts controller {@code x} in its namespace; returns its log. */
  /** The end of each controller's log, for a failure message. */
  private String logTails() {
    StringBuilder out = new StringBuilder();
    for (String c : CONTROLLERS) {
      out.append("\nctl-").append(c).append(".log:\n").append(TestbedRun.tail(dir.resolve("ctl-" + c + ".log"), 30));
    }
    return out.toString();
  }

  private Path startController(Path jar, String x, String address, int minimum, String extra) throws IOException {
    Path certs = dir.resolve("certs");
    String yaml = "node: { name: ctl-" + x + ", site: dc, roles: [controller] }\n"
        + "controller:\n"
        + "  listen: " + address + ":7700\n"
        + "  token-file: " + dir.resolve("secrets/token") + "\n"
        + "  tls: { certificate: " + certs.resolve("ctl-" + x + ".crt") + ", private-key: " + certs.resolve("ctl-" + x + ".key")
        + ", trusted: " + certs.resolve("ca.crt") + " }\n"
        + "  operator-ca: " + certs.resolve("operator-ca.crt") + "\n"
        + "  hazelcast:\n"
        + "    cluster-name: " + CLUSTER + "\n"
        + "    bind-address: " + address + "\n"
        + "    port: 5701\n"
        + "    members: [198.18.50.1:5701, 198.18.50.2:5701, 198.18.50.3:5701]\n"
        + "    heartbeat: 1s\n"
        + "    max-no-heartbeat: 4s\n"
        + "    join-wait: 1s\n"
        + "    minimum-cluster-size: " + minimum + "\n"
        + extra;
    Path config = Files.writeString(dir.resolve("ctl-" + x + ".yaml"), yaml);
    Path logFile = dir.resolve("ctl-" + x + ".log");
    run.start(run.ns(x), logFile, "java", "-Xmx192m", "-XX:+ExitOnOutOfMemoryError", "-jar", jar.toString(), "run", "--config",
        config.toString());
    return logFile;
  }

  private String probeCommand(Path jar) {
    Path certs = dir.resolve("certs");
    return "java " + TestbedRun.QUICK_JVM + " -cp " + jar + ":" + run.bench().resolve("target/test-classes") + " "
        + ControlPlaneProbe.class.getName() + " " + certs.resolve("ca.crt") + " " + TOKEN + " " + certs.resolve("rogue-1.crt") + " "
        + certs.resolve("rogue-1.key");
  }

  /** The probe runs in the rogue's namespace: everything it reaches, an intruder on that network reaches. */
  private void startProbe(Path jar) throws Exception {
    Path logFile = dir.resolve("probe.err");
    Process probe = new ProcessBuilder("ip", "netns", "exec", run.ns("rogue"), "sh", "-c", probeCommand(jar))
        .redirectError(logFile.toFile()).start();
    run.onClose(probe::destroyForcibly);
    probeOut = new BufferedReader(new InputStreamReader(probe.getInputStream(), StandardCharsets.UTF_8));
    probeIn = probe.getOutputStream();
    assertEquals("READY", probeOut.readLine(), () -> TestbedRun.read(logFile));
  }

  private String ask(String command) throws IOException {
    probeIn.write((command + "\n").getBytes(StandardCharsets.UTF_8));
    probeIn.flush();
    String answer = probeOut.readLine();
    if (answer == null) {
      throw new AssertionError("the probe exited (" + command + ")");
    }
    return answer;
  }

  private int members(String api) throws IOException {
    Matcher m = STATUS.matcher(ask("status " + api));
    return m.find() ? Integer.parseInt(m.group(1)) : -1;
  }

  private long policyVersion(String api) throws IOException {
    String status = ask("status " + api);
    Matcher m = STATUS.matcher(status);
    assertTrue(m.find(), status);
    return Long.parseLong(m.group(3));
  }

  // ---- policies ---------------------------------------------------------------------------------

  private Path policy(String name) throws IOException {
    return Files.writeString(dir.resolve(name + ".yaml"), "prefix-lists:\n  LAN: [198.18.1.0/24]\n"
        + "data-policy:\n  name: " + name + "\n  sequences:\n"
        + "    - { seq: 1, match: { source-prefix-list: LAN }, action: pass-through }\n"
        + "  default-action: pass-through\n");
  }

  private Path aliasBomb() throws IOException {
    StringBuilder yaml = new StringBuilder("a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
    for (char x = 'b'; x <= 'i'; x++) {
      yaml.append(x).append(": &").append(x).append(" [").append(("*" + (char) (x - 1) + ",").repeat(8)).append('*').append((char) (x - 1))
          .append("]\n");
    }
    return Files.writeString(dir.resolve("bomb.yaml"), yaml);
  }

  private Path deepNesting() throws IOException {
    return Files.writeString(dir.resolve("deep.yaml"), "a: " + "[".repeat(100_000) + "]".repeat(100_000) + "\n");
  }

  private Path prefixes(String name, int size) throws IOException {
    StringBuilder yaml = new StringBuilder("prefix-lists:\n  BIG:\n");
    for (int i = 0; yaml.length() < size; i++) {
      yaml.append("    - 10.").append((i >> 16) & 255).append('.').append((i >> 8) & 255).append('.').append(i & 255).append("/32\n");
    }
    return Files.writeString(dir.resolve(name), yaml);
  }
}
