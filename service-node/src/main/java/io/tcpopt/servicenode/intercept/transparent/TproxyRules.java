package io.tcpopt.servicenode.intercept.transparent;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
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
 *   <li>{@code ip rule add fwmark MARK lookup TABLE} and {@code ip route add local 0.0.0.0/0 dev lo
 *       table TABLE}, so marked packets are delivered locally, to the IP_TRANSPARENT listener.
 * </ul>
 *
 * The nft table is replaced atomically ({@code nft -f -}), so a table left by a crashed node is
 * replaced rather than duplicated. A rule or route that already existed is left in place and not
 * removed at {@link #close()}: close removes exactly what install added. A JVM shutdown hook
 * removes the rules if the process is stopped without {@code close()}. IPv4 only.
 */
public final class TproxyRules implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TproxyRules.class);
  static final String TABLE = "tcpopt";
  private static final Pattern IPV4_PREFIX = Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})(/(\\d{1,2}))?");
  private static final int CAP_NET_ADMIN = 12;

  private final Commands commands;
  private final int mark;
  private final int routeTable;
  private final boolean addedRule;
  private final boolean addedRoute;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Thread shutdownHook;

  private TproxyRules(Commands commands, int mark, int routeTable, boolean addedRule, boolean addedRoute) {
    this.commands = commands;
    this.mark = mark;
    this.routeTable = routeTable;
    this.addedRule = addedRule;
    this.addedRoute = addedRoute;
    this.shutdownHook = new Thread(this::remove, "tcpopt-tproxy-cleanup");
  }

  /**
   * Installs the rules in the current network namespace.
   *
   * @param port the IP_TRANSPARENT listener's port
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
    String script = nftScript(port, mark, sources, destinations);
    if (routeTable <= 0 || routeTable >= 253 && routeTable <= 255) {
      throw new TproxyException("route table must be a free table number (1-252 or above 255), got " + routeTable);
    }
    Commands.requireTool("nft", "nftables");
    Commands.requireTool("ip", "iproute2");
    if (!hasNetAdmin()) {
      throw new TproxyException("transparent interception needs root (CAP_NET_ADMIN) to install nftables and policy routing rules; run as root or use explicit listeners");
    }

    Commands.Result nft = commands.run(script, "nft", "-f", "-");
    if (!nft.ok()) {
      throw new TproxyException("nft refused the tcpopt table: " + nft.why());
    }
    boolean addedRule = false;
    boolean addedRoute = false;
    try {
      // The kernel accepts duplicate rules, so look before adding.
      Commands.Result existing = commands.run(null, "ip", "rule", "show", "fwmark", Integer.toString(mark), "lookup", Integer.toString(routeTable));
      if (existing.ok() && !existing.stdout().isBlank()) {
        log.info("ip rule fwmark {} lookup {} already present; leaving it in place", mark, routeTable);
      } else {
        addedRule = addUnlessPresent(commands, "ip rule", "ip", "rule", "add", "fwmark", Integer.toString(mark), "lookup", Integer.toString(routeTable));
      }
      addedRoute = addUnlessPresent(commands, "local route", "ip", "route", "add", "local", "0.0.0.0/0", "dev", "lo", "table", Integer.toString(routeTable));
    } catch (TproxyException e) {
      new TproxyRules(commands, mark, routeTable, addedRule, addedRoute).remove();
      throw e;
    }
    TproxyRules rules = new TproxyRules(commands, mark, routeTable, addedRule, addedRoute);
    Runtime.getRuntime().addShutdownHook(rules.shutdownHook);
    log.info("transparent interception on :{} (mark {}, table {}) for sources {} destinations {}",
        port, mark, routeTable, sources.isEmpty() ? "any" : sources, destinations.isEmpty() ? "any" : destinations);
    return rules;
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

  private void remove() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    quietly("nft table " + TABLE, "nft", "delete", "table", "ip", TABLE);
    if (addedRoute) {
      quietly("local route", "ip", "route", "del", "local", "0.0.0.0/0", "dev", "lo", "table", Integer.toString(routeTable));
    }
    if (addedRule) {
      quietly("ip rule", "ip", "rule", "del", "fwmark", Integer.toString(mark), "lookup", Integer.toString(routeTable));
    }
    log.info("transparent interception rules removed");
  }

  private void quietly(String what, String... command) {
    try {
      Commands.Result r = commands.run(null, command);
      if (!r.ok()) {
        log.warn("cannot remove {}: {}", what, r.why());
      }
    } catch (TproxyException e) {
      log.warn("cannot remove {}: {}", what, e.getMessage());
    }
  }

  /** Adds; "File exists" means an earlier run left it, which is kept and not ours to remove. */
  private static boolean addUnlessPresent(Commands commands, String what, String... command) {
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

  /** The nft script: delete a stale table (the add makes the delete safe when there is none), then create it. */
  static String nftScript(int port, int mark, List<String> sources, List<String> destinations) {
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
    return String.join("\n",
        "add table ip " + TABLE,
        "delete table ip " + TABLE,
        "table ip " + TABLE + " {",
        "  chain prerouting {",
        "    type filter hook prerouting priority mangle; policy accept;",
        "    meta l4proto tcp socket transparent 1 meta mark set " + hexMark + " accept",
        "    fib daddr type local accept",
        "    " + match + " meta mark set " + hexMark + " tproxy to :" + port,
        "  }",
        "}",
        "");
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

  private static boolean hasNetAdmin() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("CapEff:")) {
          return (Long.parseUnsignedLong(line.substring(7).trim(), 16) & (1L << CAP_NET_ADMIN)) != 0;
        }
      }
    } catch (IOException | RuntimeException e) {
      return false;
    }
    return false;
  }
}
