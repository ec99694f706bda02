package io.tcpopt.servicenode.intercept.transparent;

import io.tcpopt.common.net.LinuxCapabilities;
import io.tcpopt.common.netfilter.Commands;
import io.tcpopt.common.netfilter.ExitGuard;
import io.tcpopt.common.netfilter.NetfilterException;
import io.tcpopt.common.netfilter.OwnedTable;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kernel side of transparent interception, installed for the life of a service node:
 *
 * <ul>
 *   <li>nftables table {@code ip tcpopt}, chain {@code prerouting} (filter hook at mangle
 *       priority): packets of already transparent sockets get the mark and pass; packets to this
 *       host's own addresses pass untouched; other TCP packets matching the optional source and
 *       destination prefixes get the mark and are diverted with {@code tproxy to :PORT}.
 *   <li>{@code ip rule add fwmark MARK lookup TABLE proto 149} and {@code ip route add local
 *       0.0.0.0/0 dev lo table TABLE proto 149}, so marked packets are delivered locally, to the
 *       IP_TRANSPARENT listener. Protocol number {@value #PROTO} tags them as tcpopt's.
 * </ul>
 *
 * <p><b>Fail to wire.</b> The table is an {@link OwnedTable}: the kernel deletes it the moment this
 * JVM dies, however it dies, and new connections are routed as if tcpopt were not there. The rule
 * and route are inert without the table (nothing else sets the mark) and are removed by an {@link
 * ExitGuard} when the JVM dies, by {@link #close()} at a graceful stop, and by a JVM shutdown hook
 * when the process exits without {@code close()}. On a kernel without table ownership the table
 * is installed without it ({@link #failToWire()} says so) and the guard deletes it too.
 *
 * <p><b>Leftovers.</b> The install replaces a table of the same name that has no live owner, and
 * adopts a rule or route tagged {@value #PROTO} left by an earlier run (removing it at close). A
 * rule or route without the tag belongs to someone else: it is used, and left in place at close.
 * If the {@code nft} child dies while the node runs, interception stops (flows go direct) until
 * {@link OwnedTable} has installed the table again; {@link #failToWire()} says so meanwhile. IPv4
 * only.
 */
public final class TproxyRules implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TproxyRules.class);
  static final String TABLE = "tcpopt";
  /** The routing protocol number tagging the rule and route this class installs. */
  static final int PROTO = 149;
  private static final Pattern IPV4_PREFIX = Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})(/(\\d{1,2}))?");

  private final Commands commands;
  private final int mark;
  private final int routeTable;
  private final ExitGuard guard;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Thread shutdownHook;
  private volatile OwnedTable table;
  /** Added by this install (removed on any failure), or adopted from an earlier run (removed at close only). */
  private boolean addedRule;
  private boolean addedRoute;
  private boolean adoptedRule;
  private boolean adoptedRoute;

  private TproxyRules(Commands commands, int mark, int routeTable, ExitGuard guard) {
    this.commands = commands;
    this.mark = mark;
    this.routeTable = routeTable;
    this.guard = guard;
    this.shutdownHook = new Thread(this::remove, "tcpopt-tproxy-cleanup");
  }

  /**
   * Installs the rules in the current network namespace.
   *
   * @param port the IP_TRANSPARENT listener's port (bind it before: the table diverts at once)
   * @param mark the firewall mark (non-zero) that routes diverted packets to {@code routeTable}
   * @param routeTable the policy routing table holding the local default route (not 0, 253-255)
   * @param sources client prefixes to intercept ({@code 198.18.1.0/24}); empty = any
   * @param destinations server prefixes to intercept; empty = any destination that is not this host
   * @throws TproxyException naming what is missing or which command failed, with its stderr
   */
  public static TproxyRules install(int port, int mark, int routeTable, List<String> sources, List<String> destinations) {
    return install(new Commands(List.of()), port, mark, routeTable, sources, destinations);
  }

  static TproxyRules install(Commands commands, int port, int mark, int routeTable, List<String> sources, List<String> destinations) {
    List<String> body = tableBody(port, mark, sources, destinations);
    if (routeTable <= 0 || routeTable >= 253 && routeTable <= 255) {
      throw new TproxyException("route table must be a free table number (1-252 or above 255), got " + routeTable);
    }
    try {
      Commands.requireTool("nft", "nftables");
      Commands.requireTool("ip", "iproute2");
    } catch (NetfilterException e) {
      throw new TproxyException("transparent interception " + e.getMessage());
    }
    if (!LinuxCapabilities.hasNetAdmin()) {
      throw new TproxyException("transparent interception needs root (CAP_NET_ADMIN) to install nftables and policy routing rules; run as root or use explicit listeners");
    }
    // The guard first: whatever is added from here on is removed if the JVM dies half-way.
    ExitGuard guard = ExitGuard.start(commands, List.of(
        List.of("nft", "delete", "table", "ip", TABLE),
        List.of("ip", "route", "del", "local", "0.0.0.0/0", "dev", "lo", "table", Integer.toString(routeTable), "proto", Integer.toString(PROTO)),
        List.of("ip", "rule", "del", "fwmark", Integer.toString(mark), "lookup", Integer.toString(routeTable), "proto", Integer.toString(PROTO))))
        .orElse(null);
    TproxyRules rules = new TproxyRules(commands, mark, routeTable, guard);
    try {
      rules.addRouting();
      rules.table = OwnedTable.install(commands, "ip", TABLE, body);
    } catch (NetfilterException | TproxyException e) {
      // Adopted routing stays: it may belong to a node that is still running (whose table we were refused).
      rules.adoptedRule = false;
      rules.adoptedRoute = false;
      rules.remove();
      throw e instanceof TproxyException t ? t : new TproxyException(e.getMessage(), e);
    }
    Runtime.getRuntime().addShutdownHook(rules.shutdownHook);
    if (rules.table.ownership() == OwnedTable.Ownership.KERNEL) {
      log.info("transparent interception on :{} (mark {}, table {}) for sources {} destinations {}; the kernel removes it if this process dies",
          port, mark, routeTable, sources.isEmpty() ? "any" : sources, destinations.isEmpty() ? "any" : destinations);
    } else {
      log.warn("transparent interception on :{} WITHOUT kernel-owned nftables table (this kernel lacks the owner flag, Linux < 5.12): "
          + "if this process dies, only the exit guard{} removes table ip {}", port, guard == null ? " (none: no sh)" : "", TABLE);
    }
    return rules;
  }

  /** Adds (or adopts) the policy routing rule and the local route. */
  private void addRouting() {
    String proto = Integer.toString(PROTO);
    // The kernel accepts duplicate rules, so look before adding.
    Commands.Result existing = commands.run(null, "ip", "rule", "show", "fwmark", Integer.toString(mark), "lookup", Integer.toString(routeTable));
    String rule = existing.ok() ? existing.stdout().strip() : "";
    if (rule.isEmpty()) {
      addedRule = add("ip rule", "ip", "rule", "add", "fwmark", Integer.toString(mark), "lookup", Integer.toString(routeTable), "proto", proto);
    } else if (rule.lines().anyMatch(l -> l.contains(" proto " + proto))) {
      adoptedRule = true;
      log.info("adopting ip rule fwmark {} lookup {} left by an earlier run", mark, routeTable);
    } else {
      log.info("ip rule fwmark {} lookup {} was installed by someone else; using it and leaving it in place", mark, routeTable);
    }
    Commands.Result routes = commands.run(null, "ip", "route", "show", "table", Integer.toString(routeTable));
    String local = routes.ok() ? routes.stdout().lines().filter(l -> l.startsWith("local default dev lo")).findFirst().orElse("") : "";
    if (local.isEmpty()) {
      addedRoute = add("local route", "ip", "route", "add", "local", "0.0.0.0/0", "dev", "lo", "table", Integer.toString(routeTable), "proto", proto);
    } else if (local.contains(" proto " + proto)) {
      adoptedRoute = true;
      log.info("adopting the local route of table {} left by an earlier run", routeTable);
    } else {
      log.info("local route in table {} was installed by someone else; using it and leaving it in place", routeTable);
    }
  }

  /** How new connections are kept from a dead node: null when the kernel does it, else what does. */
  public String failToWire() {
    OwnedTable t = table;
    String problem = t == null ? null : t.problem();
    if (problem != null) {
      return "transparent interception lost, new flows go direct: " + problem;
    }
    if (t != null && t.ownership() == OwnedTable.Ownership.NONE) {
      return "kernel lacks nftables table ownership: if the node dies, its TPROXY table stays until the exit guard removes it"
          + (guard == null ? " (no guard: no sh)" : "");
    }
    return null;
  }

  /** Removes what {@link #install} added; idempotent, never throws (failures are logged). */
  @Override
  public void close() {
    remove();
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException e) {
      // already shutting down: the hook is running or has run
    }
  }

  /** Table first (interception stops at once), then routing, then the guard is disarmed. */
  private void remove() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    OwnedTable t = table;
    if (t != null) {
      t.close();
    }
    if (addedRoute || adoptedRoute) {
      quietly("local route", "ip", "route", "del", "local", "0.0.0.0/0", "dev", "lo", "table", Integer.toString(routeTable), "proto",
          Integer.toString(PROTO));
    }
    if (addedRule || adoptedRule) {
      quietly("ip rule", "ip", "rule", "del", "fwmark", Integer.toString(mark), "lookup", Integer.toString(routeTable), "proto",
          Integer.toString(PROTO));
    }
    if (guard != null) {
      guard.close();
    }
    log.info("transparent interception rules removed");
  }

  private void quietly(String what, String... command) {
    try {
      Commands.Result r = commands.run(null, command);
      if (!r.ok()) {
        log.warn("cannot remove {}: {}", what, r.why());
      }
    } catch (NetfilterException e) {
      log.warn("cannot remove {}: {}", what, e.getMessage());
    }
  }

  /** Adds; "File exists" (a race with another process) leaves it in place, not ours to remove. */
  private boolean add(String what, String... command) {
    Commands.Result r = commands.run(null, command);
    if (r.ok()) {
      return true;
    }
    if (r.stderr().contains("File exists")) {
      log.info("{} already present; leaving it in place", what);
      return false;
    }
    throw new TproxyException("cannot add " + what + " (" + String.join(" ", command) + "): " + r.why());
  }

  /** The statements inside {@code table ip tcpopt { ... }}, one per item (see {@link OwnedTable#install}). */
  static List<String> tableBody(int port, int mark, List<String> sources, List<String> destinations) {
    if (port < 1 || port > 65535) {
      throw new TproxyException("transparent port must be between 1 and 65535, got " + port);
    }
    if (mark == 0) {
      throw new TproxyException("firewall mark must not be 0");
    }
    String hexMark = "0x" + Integer.toHexString(mark);
    StringBuilder match = new StringBuilder("meta l4proto tcp");
    if (!sources.isEmpty()) {
      match.append(" ip saddr { ").append(String.join(", ", prefixes("source", sources))).append(" }");
    }
    if (!destinations.isEmpty()) {
      match.append(" ip daddr { ").append(String.join(", ", prefixes("destination", destinations))).append(" }");
    }
    return List.of(
        "chain prerouting {",
        "type filter hook prerouting priority mangle; policy accept",
        "meta l4proto tcp socket transparent 1 meta mark set " + hexMark + " accept",
        "fib daddr type local accept",
        match + " meta mark set " + hexMark + " tproxy to :" + port,
        "}");
  }

  /** Validates IPv4 prefixes strictly (they are pasted into an nft script) and normalizes them. */
  static List<String> prefixes(String role, List<String> values) {
    List<String> out = new ArrayList<>();
    for (String raw : values) {
      String v = raw.trim();
      var m = IPV4_PREFIX.matcher(v);
      if (!m.matches()) {
        throw new TproxyException(role + " prefix \"" + raw + "\" is not an IPv4 address or prefix such as 198.18.1.0/24 (IPv6 is not supported yet)");
      }
      for (int i = 1; i <= 4; i++) {
        if (Integer.parseInt(m.group(i)) > 255) {
          throw new TproxyException(role + " prefix \"" + raw + "\" has an octet above 255");
        }
      }
      int length = m.group(6) == null ? 32 : Integer.parseInt(m.group(6));
      if (length > 32) {
        throw new TproxyException(role + " prefix \"" + raw + "\" has a length above 32");
      }
      out.add(network(v.contains("/") ? v.substring(0, v.indexOf('/')) : v, length) + "/" + length);
    }
    return out;
  }

  /** The network address of {@code address}/{@code length} (nft refuses host bits in a prefix). */
  private static String network(String address, int length) {
    try {
      byte[] b = InetAddress.getByName(address).getAddress();
      int bits = ((b[0] & 0xff) << 24) | ((b[1] & 0xff) << 16) | ((b[2] & 0xff) << 8) | (b[3] & 0xff);
      int masked = length == 0 ? 0 : bits & (-1 << (32 - length));
      return ((masked >>> 24) & 0xff) + "." + ((masked >>> 16) & 0xff) + "." + ((masked >>> 8) & 0xff) + "." + (masked & 0xff);
    } catch (UnknownHostException e) {
      throw new TproxyException("\"" + address + "\" is not an IPv4 address", e);
    }
  }
}
