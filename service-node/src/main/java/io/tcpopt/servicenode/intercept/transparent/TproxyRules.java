package io.tcpopt.servicenode.intercept.transparent;

import io.tcpopt.common.net.LinuxCapabilities;
import io.tcpopt.common.netfilter.Commands;
import io.tcpopt.common.netfilter.ExitGuard;
import io.tcpopt.common.netfilter.NetfilterException;
import io.tcpopt.common.netfilter.OwnedTable;
import io.tcpopt.common.policy.Cidr;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kernel side of transparent operation, installed for the life of a service node, for IPv4
 * and IPv6 alike:
 *
 * <ul>
 *   <li>nftables table {@code inet tcpopt}, chain {@code prerouting} (filter hook at mangle
 *       priority): packets of the node's own transparent sockets get the mark and pass (the
 *       <em>return path</em>: a server's answers to a connection the node made from a client's
 *       address); packets to this host's own addresses pass untouched; with a {@link Diversion},
 *       the first packet (SYN) of other TCP connections matching its source and destination
 *       prefixes gets the mark and is diverted with {@code tproxy to :PORT} (the
 *       <em>interception</em>). Only SYNs are diverted — the rest of a diverted connection is
 *       found by its socket — so a connection that began while interception was suspended
 *       ({@link #interception(boolean)}: drain) stays on its direct path when it resumes.
 *   <li>For each family, {@code ip rule add fwmark MARK lookup TABLE proto 149} and {@code ip route
 *       add local 0.0.0.0/0 (::/0) dev lo table TABLE proto 149}, so marked packets are delivered
 *       locally, to the IP_TRANSPARENT listener or socket. Protocol number {@value #PROTO} tags
 *       them as tcpopt's. IPv6 routing is best effort when no IPv6 prefix is named (a host
 *       without IPv6 then carries IPv4 only, and says so).
 * </ul>
 *
 * <p><b>Fail to wire.</b> The table is an {@link OwnedTable}: the kernel deletes it the moment this
 * JVM dies, however it dies, and new connections are routed as if tcpopt were not there. The rules
 * and routes are inert without the table (nothing else sets the mark) and are removed by an {@link
 * ExitGuard} when the JVM dies, by {@link #close()} at a graceful stop, and by a JVM shutdown hook
 * when the process exits without {@code close()}. On a kernel without table ownership the table
 * is installed without it ({@link #failToWire()} says so) and the guard deletes it too.
 *
 * <p><b>Leftovers.</b> The install replaces a table of the same name that has no live owner, and
 * adopts a rule or route tagged {@value #PROTO} left by an earlier run (removing it at close). A
 * rule or route without the tag belongs to someone else: it is used, and left in place at close.
 * If the {@code nft} child dies while the node runs, interception stops (flows go direct) until
 * {@link OwnedTable} has installed the table again; {@link #failToWire()} says so meanwhile.
 */
public final class TproxyRules implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TproxyRules.class);
  static final String FAMILY = "inet";
  static final String TABLE = "tcpopt";
  /** The routing protocol number tagging the rules and routes this class installs. */
  static final int PROTO = 149;

  /**
   * What to intercept: TCP from {@code sources} to {@code destinations} (IPv4 and IPv6 prefixes,
   * each list empty = any; a family named on one side only is intercepted only on that side's
   * terms) diverted to the IP_TRANSPARENT listener on {@code port}.
   */
  public record Diversion(int port, List<String> sources, List<String> destinations) {
    public Diversion {
      sources = List.copyOf(sources);
      destinations = List.copyOf(destinations);
    }
  }

  /** One address family's policy routing: the rule and the local route. */
  private enum Family {
    V4("-4", "0.0.0.0/0", "IPv4"),
    V6("-6", "::/0", "IPv6");

    final String flag;
    final String everything;
    final String label;

    Family(String flag, String everything, String label) {
      this.flag = flag;
      this.everything = everything;
      this.label = label;
    }

    @Override
    public String toString() {
      return label;
    }
  }

  private final Commands commands;
  private final int mark;
  private final int routeTable;
  private final ExitGuard guard;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Thread shutdownHook;
  private final List<Routing> routing = new ArrayList<>();
  /** A connection's first packet: the only one interception diverts. */
  private static final String SYN = "meta l4proto tcp tcp flags & (syn | ack) == syn";

  private volatile OwnedTable table;
  private Diversion diversion;
  private boolean intercepting;

  private TproxyRules(Commands commands, int mark, int routeTable, ExitGuard guard) {
    this.commands = commands;
    this.mark = mark;
    this.routeTable = routeTable;
    this.guard = guard;
    this.shutdownHook = new Thread(this::remove, "tcpopt-tproxy-cleanup");
  }

  /** Interception (and its return path) in the current network namespace; see {@link #install(Diversion, int, int)}. */
  public static TproxyRules install(int port, int mark, int routeTable, List<String> sources, List<String> destinations) {
    return install(new Diversion(port, sources, destinations), mark, routeTable);
  }

  /**
   * Installs the rules in the current network namespace.
   *
   * @param diversion what to intercept, or null for the return path alone (a node that connects
   *     to servers from clients' addresses but intercepts nothing)
   * @param mark the firewall mark (non-zero) that routes marked packets to {@code routeTable}
   * @param routeTable the policy routing table holding the local default route (not 0, 253-255)
   * @throws TproxyException naming what is missing or which command failed, with its stderr
   */
  public static TproxyRules install(Diversion diversion, int mark, int routeTable) {
    return install(new Commands(List.of()), diversion, mark, routeTable);
  }

  static TproxyRules install(Commands commands, Diversion diversion, int mark, int routeTable) {
    List<String> body = tableBody(diversion, mark);
    boolean v6Required = diversion != null && Stream.concat(diversion.sources().stream(), diversion.destinations().stream()).anyMatch(p -> p.contains(":"));
    if (routeTable <= 0 || routeTable >= 253 && routeTable <= 255) {
      throw new TproxyException("route table must be a free table number (1-252 or above 255), got " + routeTable);
    }
    try {
      Commands.requireTool("nft", "nftables");
      Commands.requireTool("ip", "iproute2");
    } catch (NetfilterException e) {
      throw new TproxyException("transparent operation " + e.getMessage());
    }
    if (!LinuxCapabilities.hasNetAdmin()) {
      throw new TproxyException("transparent operation needs root (CAP_NET_ADMIN) to install nftables and policy routing rules; run as root or use explicit listeners");
    }
    // The guard first: whatever is added from here on is removed if the JVM dies half-way.
    ExitGuard guard = ExitGuard.start(commands, removal(mark, routeTable)).orElse(null);
    TproxyRules rules = new TproxyRules(commands, mark, routeTable, guard);
    rules.diversion = diversion;
    rules.intercepting = diversion != null;
    try {
      rules.addRouting(Family.V4);
      try {
        rules.addRouting(Family.V6);
      } catch (TproxyException e) {
        if (v6Required) {
          throw e;
        }
        // what was added for IPv6 is inert without its route, and removed at close
        log.warn("no IPv6 policy routing on this host, IPv6 flows are not handled transparently: {}", e.getMessage());
      }
      rules.table = OwnedTable.install(commands, FAMILY, TABLE, body);
    } catch (NetfilterException | TproxyException e) {
      // Adopted routing stays: it may belong to a node that is still running (whose table we were refused).
      rules.routing.forEach(r -> r.adopted = false);
      rules.remove();
      throw e instanceof TproxyException t ? t : new TproxyException(e.getMessage(), e);
    }
    Runtime.getRuntime().addShutdownHook(rules.shutdownHook);
    String what = diversion == null ? "return path for connections from clients' addresses"
        : "transparent interception on :" + diversion.port() + " for sources " + any(diversion.sources()) + " destinations " + any(diversion.destinations());
    if (rules.table.ownership() == OwnedTable.Ownership.KERNEL) {
      log.info("{} (mark {}, table {}); the kernel removes it if this process dies", what, mark, routeTable);
    } else {
      log.warn("{} WITHOUT kernel-owned nftables table (this kernel lacks the owner flag, Linux < 5.12): "
          + "if this process dies, only the exit guard{} removes table {} {}", what, guard == null ? " (none: no sh)" : "", FAMILY, TABLE);
    }
    return rules;
  }

  private static Object any(List<String> prefixes) {
    return prefixes.isEmpty() ? "any" : prefixes;
  }

  /**
   * The commands that remove whatever an install may leave, table and both families' routing: the
   * exit guard runs them when the JVM dies, and deploy/systemd/tcpopt@.service's ExecStopPost runs
   * the same when the guard died too (TproxyRulesTest holds the two together).
   */
  static List<List<String>> removal(int mark, int routeTable) {
    List<List<String>> out = new ArrayList<>();
    out.add(List.of("nft", "delete", "table", FAMILY, TABLE));
    for (Family f : Family.values()) {
      out.add(routeCommand(f, "del", routeTable));
      out.add(ruleCommand(f, "del", mark, routeTable));
    }
    return out;
  }

  private static List<String> ruleCommand(Family f, String verb, int mark, int routeTable) {
    return List.of("ip", f.flag, "rule", verb, "fwmark", Integer.toString(mark), "lookup", Integer.toString(routeTable), "proto",
        Integer.toString(PROTO));
  }

  private static List<String> routeCommand(Family f, String verb, int routeTable) {
    return List.of("ip", f.flag, "route", verb, "local", f.everything, "dev", "lo", "table", Integer.toString(routeTable), "proto",
        Integer.toString(PROTO));
  }

  /** What this install did to one family's rule and route: added (removed on any failure), or adopted (removed at close only). */
  private static final class Routing {
    final Family family;
    boolean addedRule;
    boolean addedRoute;
    boolean adopted;
    boolean adoptedRule;
    boolean adoptedRoute;

    Routing(Family family) {
      this.family = family;
    }
  }

  /** Adds (or adopts) one family's policy routing rule and local route. */
  private void addRouting(Family f) {
    String proto = Integer.toString(PROTO);
    Routing r = new Routing(f);
    // The kernel accepts duplicate rules, so look before adding.
    Commands.Result existing = commands.run(null, "ip", f.flag, "rule", "show", "fwmark", Integer.toString(mark), "lookup", Integer.toString(routeTable));
    if (!existing.ok()) {
      throw new TproxyException("cannot read " + f + " policy rules: " + existing.why());
    }
    routing.add(r);
    String rule = existing.stdout().strip();
    if (rule.isEmpty()) {
      r.addedRule = add(f + " ip rule", ruleCommand(f, "add", mark, routeTable));
    } else if (rule.lines().anyMatch(l -> l.contains(" proto " + proto))) {
      r.adoptedRule = true;
      log.info("adopting {} ip rule fwmark {} lookup {} left by an earlier run", f, mark, routeTable);
    } else {
      log.info("{} ip rule fwmark {} lookup {} was installed by someone else; using it and leaving it in place", f, mark, routeTable);
    }
    Commands.Result routes = commands.run(null, "ip", f.flag, "route", "show", "table", Integer.toString(routeTable));
    String local = routes.ok() ? routes.stdout().lines().filter(l -> l.startsWith("local default dev lo")).findFirst().orElse("") : "";
    if (local.isEmpty()) {
      r.addedRoute = add(f + " local route", routeCommand(f, "add", routeTable));
    } else if (local.contains(" proto " + proto)) {
      r.adoptedRoute = true;
      log.info("adopting the {} local route of table {} left by an earlier run", f, routeTable);
    } else {
      log.info("{} local route in table {} was installed by someone else; using it and leaving it in place", f, routeTable);
    }
    r.adopted = r.adoptedRule || r.adoptedRoute;
  }

  /**
   * Resumes ({@code true}) or suspends ({@code false}) the interception of new connections, through
   * the process owning the table: while suspended, new connections go direct through the kernel as
   * if tcpopt were not there, and stay direct for their whole life; connections already diverted,
   * and the return path, keep working. Idempotent; nothing to do without a {@link Diversion}.
   *
   * @throws TproxyException when nft refuses the change (the previous state stays)
   */
  public synchronized void interception(boolean on) {
    if (diversion == null || on == intercepting || closed.get()) {
      return;
    }
    try {
      table.replace(tableBody(on ? diversion : null, mark));
    } catch (NetfilterException e) {
      throw new TproxyException((on ? "cannot resume" : "cannot suspend") + " transparent interception: " + e.getMessage(), e);
    }
    intercepting = on;
    log.info("transparent interception {}", on ? "resumed: new connections are diverted again" : "suspended: new connections go direct");
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
    for (Routing r : routing) {
      if (r.addedRoute || r.adopted && r.adoptedRoute) {
        quietly(r.family + " local route", routeCommand(r.family, "del", routeTable));
      }
      if (r.addedRule || r.adopted && r.adoptedRule) {
        quietly(r.family + " ip rule", ruleCommand(r.family, "del", mark, routeTable));
      }
    }
    if (guard != null) {
      guard.close();
    }
    log.info("transparent rules removed");
  }

  private void quietly(String what, List<String> command) {
    try {
      Commands.Result r = commands.run(null, command.toArray(String[]::new));
      if (!r.ok()) {
        log.warn("cannot remove {}: {}", what, r.why());
      }
    } catch (NetfilterException e) {
      log.warn("cannot remove {}: {}", what, e.getMessage());
    }
  }

  /** Adds; "File exists" (a race with another process) leaves it in place, not ours to remove. */
  private boolean add(String what, List<String> command) {
    Commands.Result r = commands.run(null, command.toArray(String[]::new));
    if (r.ok()) {
      return true;
    }
    if (r.stderr().contains("File exists")) {
      log.info("{} already present; leaving it in place", what);
      return false;
    }
    throw new TproxyException("cannot add " + what + " (" + String.join(" ", command) + "): " + r.why());
  }

  /**
   * The statements inside {@code table inet tcpopt { ... }}, one per item (see {@link
   * OwnedTable#install}); {@code diversion} null for the return path alone.
   */
  static List<String> tableBody(Diversion diversion, int mark) {
    if (mark == 0) {
      throw new TproxyException("firewall mark must not be 0");
    }
    String hexMark = "0x" + Integer.toHexString(mark);
    List<String> out = new ArrayList<>(List.of(
        "chain prerouting {",
        "type filter hook prerouting priority mangle; policy accept",
        "meta l4proto tcp socket transparent 1 meta mark set " + hexMark + " accept",
        "fib daddr type local accept"));
    if (diversion != null) {
      if (diversion.port() < 1 || diversion.port() > 65535) {
        throw new TproxyException("transparent port must be between 1 and 65535, got " + diversion.port());
      }
      List<Cidr> sources = prefixes("source", diversion.sources());
      List<Cidr> destinations = prefixes("destination", diversion.destinations());
      if (sources.isEmpty() && destinations.isEmpty()) {
        out.add(SYN + " meta mark set " + hexMark + " tproxy to :" + diversion.port());
      } else {
        for (boolean v4 : new boolean[] {true, false}) {
          divert(v4, sources, destinations, hexMark, diversion.port()).ifPresent(out::add);
        }
      }
    }
    out.add("}");
    return out;
  }

  /**
   * The diversion rule of one family, or none when a side names prefixes but none of this family
   * (a flow of this family can then never match).
   */
  private static Optional<String> divert(boolean v4, List<Cidr> sources, List<Cidr> destinations, String hexMark, int port) {
    List<String> src = sources.stream().filter(c -> c.isIpv4() == v4).map(Cidr::toString).toList();
    List<String> dst = destinations.stream().filter(c -> c.isIpv4() == v4).map(Cidr::toString).toList();
    if (src.isEmpty() && !sources.isEmpty() || dst.isEmpty() && !destinations.isEmpty()) {
      return Optional.empty();
    }
    String ip = v4 ? "ip" : "ip6";
    StringBuilder match = new StringBuilder(SYN);
    if (!src.isEmpty()) {
      match.append(' ').append(ip).append(" saddr { ").append(String.join(", ", src)).append(" }");
    }
    if (!dst.isEmpty()) {
      match.append(' ').append(ip).append(" daddr { ").append(String.join(", ", dst)).append(" }");
    }
    // With an address match the family is implied; nft still wants it named on tproxy.
    return Optional.of(match + " meta mark set " + hexMark + " tproxy " + ip + " to :" + port);
  }

  /** Validates prefixes strictly ({@link Cidr}: literals only, host bits zero): they are pasted into an nft script. */
  static List<Cidr> prefixes(String role, List<String> values) {
    List<Cidr> out = new ArrayList<>();
    for (String raw : values) {
      try {
        out.add(Cidr.parse(raw));
      } catch (IllegalArgumentException e) {
        throw new TproxyException(role + " prefix: " + e.getMessage());
      }
    }
    return out;
  }
}
