package io.tcpopt.servicenode.intercept.transparent;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.common.netfilter.Commands;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The testbed of DESIGN.md in four network namespaces of its own, joined by plain veth pairs:
 *
 * <pre>
 * client 198.18.1.2 — 198.18.1.1 branch 198.18.0.1 ══ 198.18.0.2 dc 198.19.1.1 — 198.19.1.2 server
 * </pre>
 *
 * <p>and the same in IPv6 beside it, from the benchmarking range 2001:2::/48 (the subnet's last
 * hex group mirrors the IPv4 /24: 2001:2:0:1801::/64 is the branch LAN, 2001:2:0:1800::/64 the
 * WAN, 2001:2:0:1901::/64 the DC LAN; hosts keep their IPv4 last octet):
 *
 * <pre>
 * client 2001:2:0:1801::2 — ::1 branch 2001:2:0:1800::1 ══ ::2 dc 2001:2:0:1901::1 — ::2 server
 * </pre>
 *
 * Branch and DC route between the LANs, so a flow that is not intercepted still gets through.
 * Namespace names carry the test JVM's pid, so parallel runs and other helpers' testbeds never
 * collide. Closing kills every child process, then deletes the namespaces (with their veths); a
 * shutdown hook does the same if the JVM is stopped first.
 */
final class NamespaceLab implements AutoCloseable {
  static final String CLIENT = "client";
  static final String BRANCH = "branch";
  static final String DC = "dc";
  static final String SERVER = "server";
  static final String CLIENT_V6 = "2001:2:0:1801::2";
  static final String SERVER_V6 = "2001:2:0:1901::2";

  private static final Pattern STALE = Pattern.compile("tcpopt-(tproxy|pair|rules)-(\\d+)(-[a-z]+)?");

  private final String prefix;
  private final Commands root = new Commands(List.of());
  private final List<String> namespaces = new ArrayList<>();
  private final List<ChildProcess> children = new ArrayList<>();
  private final Thread hook = new Thread(this::cleanUp, "namespace-lab-cleanup");
  private boolean closed;

  private NamespaceLab(String tag) {
    this.prefix = "tcpopt-" + tag + "-" + ProcessHandle.current().pid() + "-";
  }

  /** Builds the four namespaces; on any failure removes what it made and fails the test. */
  static NamespaceLab create(String tag) {
    removeStale(new Commands(List.of()));
    NamespaceLab lab = new NamespaceLab(tag);
    Runtime.getRuntime().addShutdownHook(lab.hook);
    try {
      lab.build();
      return lab;
    } catch (RuntimeException | Error e) {
      lab.close();
      throw e;
    }
  }

  private void build() {
    for (String role : List.of(CLIENT, BRANCH, DC, SERVER)) {
      must(root, "ip", "netns", "add", ns(role));
      namespaces.add(ns(role));
      must(role, "ip", "link", "set", "lo", "up");
    }
    veth(CLIENT, "lan0", BRANCH, "lan0");
    veth(BRANCH, "wan0", DC, "wan0");
    veth(DC, "lan0", SERVER, "lan0");
    address(CLIENT, "lan0", "198.18.1.2/24");
    address(BRANCH, "lan0", "198.18.1.1/24");
    address(BRANCH, "wan0", "198.18.0.1/24");
    address(DC, "wan0", "198.18.0.2/24");
    address(DC, "lan0", "198.19.1.1/24");
    address(SERVER, "lan0", "198.19.1.2/24");
    must(CLIENT, "ip", "route", "add", "default", "via", "198.18.1.1");
    must(SERVER, "ip", "route", "add", "default", "via", "198.19.1.1");
    must(BRANCH, "ip", "route", "add", "198.19.1.0/24", "via", "198.18.0.2");
    must(DC, "ip", "route", "add", "198.18.1.0/24", "via", "198.18.0.1");
    address(CLIENT, "lan0", CLIENT_V6 + "/64");
    address(BRANCH, "lan0", "2001:2:0:1801::1/64");
    address(BRANCH, "wan0", "2001:2:0:1800::1/64");
    address(DC, "wan0", "2001:2:0:1800::2/64");
    address(DC, "lan0", "2001:2:0:1901::1/64");
    address(SERVER, "lan0", SERVER_V6 + "/64");
    must(CLIENT, "ip", "-6", "route", "add", "default", "via", "2001:2:0:1801::1");
    must(SERVER, "ip", "-6", "route", "add", "default", "via", "2001:2:0:1901::1");
    must(BRANCH, "ip", "-6", "route", "add", "2001:2:0:1901::/64", "via", "2001:2:0:1800::2");
    must(DC, "ip", "-6", "route", "add", "2001:2:0:1801::/64", "via", "2001:2:0:1800::1");
    for (String router : List.of(BRANCH, DC)) {
      must(router, "sysctl", "-qw", "net.ipv4.ip_forward=1");
      must(router, "sysctl", "-qw", "net.ipv6.conf.all.forwarding=1");
    }
  }

  private void veth(String roleA, String ifA, String roleB, String ifB) {
    must(root, "ip", "link", "add", "name", ifA, "netns", ns(roleA), "type", "veth", "peer", "name", ifB, "netns", ns(roleB));
    must(roleA, "ip", "link", "set", ifA, "up");
    must(roleB, "ip", "link", "set", ifB, "up");
  }

  /** IPv6 addresses without duplicate address detection: usable at once, not seconds later. */
  private void address(String role, String dev, String cidr) {
    if (cidr.contains(":")) {
      must(role, "ip", "addr", "add", cidr, "dev", dev, "nodad");
    } else {
      must(role, "ip", "addr", "add", cidr, "dev", dev);
    }
  }

  /** The full namespace name of a role. */
  String ns(String role) {
    return prefix + role;
  }

  /** Runs a command inside a role's namespace. */
  Commands.Result exec(String role, String... command) {
    return in(role).run(null, command);
  }

  Commands in(String role) {
    return new Commands(List.of("ip", "netns", "exec", ns(role)));
  }

  /**
   * Starts {@code main} in a fresh JVM inside a role's namespace, on this test's class path: IPv4
   * sockets only, unless {@code jvmOptions} set {@code java.net.preferIPv4Stack} themselves.
   */
  ChildProcess java(String role, String name, Class<?> main, List<String> jvmOptions, String... args) throws IOException {
    List<String> argv = new ArrayList<>(List.of("ip", "netns", "exec", ns(role), javaExecutable(), "-cp", classPath(), "-XX:+UseSerialGC",
        "-Xss512k"));
    if (jvmOptions.stream().noneMatch(o -> o.startsWith("-Djava.net.preferIPv4Stack="))) {
      argv.add("-Djava.net.preferIPv4Stack=true");
    }
    argv.addAll(jvmOptions);
    argv.add(main.getName());
    argv.addAll(List.of(args));
    ChildProcess child = new ChildProcess(name, new ProcessBuilder(argv).start());
    synchronized (children) {
      children.add(child);
    }
    return child;
  }

  @Override
  public void close() {
    cleanUp();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // JVM shutting down: the hook runs cleanUp itself
    }
  }

  private synchronized void cleanUp() {
    if (closed) {
      return;
    }
    closed = true;
    synchronized (children) {
      children.forEach(ChildProcess::close);
    }
    for (String ns : namespaces) {
      root.run(null, "ip", "netns", "del", ns);
    }
  }

  /**
   * Deletes namespaces left by an earlier test JVM that was killed outright (no shutdown hook ran),
   * after killing what still runs inside them. Only names made by these tests whose pid is gone.
   */
  static void removeStale(Commands root) {
    Commands.Result list = root.run(null, "ip", "netns", "list");
    for (String line : list.stdout().lines().toList()) {
      Matcher m = STALE.matcher(line.trim().split("\\s+")[0]);
      if (!m.matches() || ProcessHandle.of(Long.parseLong(m.group(2))).map(ProcessHandle::isAlive).orElse(false)) {
        continue;
      }
      for (String pid : root.run(null, "ip", "netns", "pids", m.group()).stdout().lines().toList()) {
        ProcessHandle.of(Long.parseLong(pid.trim())).ifPresent(ProcessHandle::destroyForcibly);
      }
      root.run(null, "ip", "netns", "del", m.group());
    }
  }

  private void must(String role, String... command) {
    must(in(role), command);
  }

  private static void must(Commands commands, String... command) {
    Commands.Result r = commands.run(null, command);
    assertTrue(r.ok(), () -> String.join(" ", command) + ": " + r.why());
  }

  private static String javaExecutable() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /** Surefire runs tests from a manifest-only jar; its full class path is in a property. */
  private static String classPath() {
    String surefire = System.getProperty("surefire.test.class.path");
    return surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
  }
}
