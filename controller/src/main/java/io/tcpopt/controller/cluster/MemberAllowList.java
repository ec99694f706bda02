package io.tcpopt.controller.cluster;

import io.tcpopt.common.net.HostPort;
import io.tcpopt.common.net.LinuxCapabilities;
import io.tcpopt.common.netfilter.Commands;
import io.tcpopt.common.netfilter.NetfilterException;
import io.tcpopt.common.netfilter.OwnedTable;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Admits connections to the Hazelcast member port only from the configured members and from this
 * host: an nftables table ({@code inet tcpopt_cluster_PORT}, input hook) owned by this JVM through
 * {@link OwnedTable}, installed before the member listens and gone with the process. Open-source
 * Hazelcast has no member authentication (anyone who knows the cluster name may join), so the
 * network is the only gate; this closes it to everyone but the members' addresses. Addresses can
 * be spoofed only by a host on the path, and anyone on a member's own host is let in.
 */
final class MemberAllowList implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(MemberAllowList.class);

  private final OwnedTable table;

  private MemberAllowList(OwnedTable table) {
    this.table = table;
  }

  /**
   * Installs the allow-list for {@code config}, or returns null when it is not needed (a loopback
   * member) or disabled ({@code allow-list: false}, logged).
   *
   * @throws IllegalStateException naming the setting when it is needed but cannot be installed
   */
  static MemberAllowList install(ClusterConfig config, Commands commands) {
    String where = config.bindAddress() + ":" + config.port();
    if (isLoopback(config.bindAddress())) {
      return null;
    }
    if (!config.allowList()) {
      log.warn("Hazelcast member port {} admits anyone who can reach it (allow-list: false): a non-member knowing the cluster name "
          + "may join and rewrite the policy", where);
      return null;
    }
    TreeSet<String> v4 = new TreeSet<>();
    TreeSet<String> v6 = new TreeSet<>();
    List<String> hosts = new ArrayList<>(List.of(config.bindAddress()));
    config.members().forEach(m -> hosts.add(HostPort.lenient(m).host()));
    for (String host : hosts) {
      try {
        for (InetAddress a : InetAddress.getAllByName(host)) {
          (a instanceof Inet4Address ? v4 : v6).add(a.getHostAddress());
        }
      } catch (UnknownHostException e) {
        throw new IllegalStateException("controller.hazelcast.members: cannot resolve " + host + " for the member allow-list");
      }
    }
    if (!LinuxCapabilities.hasNetAdmin()) {
      throw refused(where, "needs root or CAP_NET_ADMIN");
    }
    String port = Integer.toString(config.port());
    List<String> body = new ArrayList<>(List.of(
        "chain input {",
        "type filter hook input priority -10; policy accept",
        "tcp dport " + port + " fib saddr type local accept"));
    if (!v4.isEmpty()) {
      body.add("tcp dport " + port + " ip saddr { " + String.join(", ", v4) + " } accept");
    }
    if (!v6.isEmpty()) {
      body.add("tcp dport " + port + " ip6 saddr { " + String.join(", ", v6) + " } accept");
    }
    body.add("tcp dport " + port + " drop");
    body.add("}");
    try {
      OwnedTable table = OwnedTable.install(commands, "inet", "tcpopt_cluster_" + port, body);
      MemberAllowList installed = new MemberAllowList(table);
      log.info("Hazelcast member port {} admits only {} and this host{}", where, String.join(", ", v4) + (v6.isEmpty() ? "" : ", " + v6),
          table.ownership() == OwnedTable.Ownership.KERNEL ? "" : " (table not kernel-owned: this kernel lacks the flag)");
      return installed;
    } catch (NetfilterException e) {
      throw refused(where, e.getMessage());
    }
  }

  /** Why the member port is not protected as configured right now, or null. */
  String problem() {
    String lost = table.problem();
    return lost == null ? null : "Hazelcast member port open to anyone while its allow-list is installed again: " + lost;
  }

  private static IllegalStateException refused(String where, String why) {
    return new IllegalStateException("controller.hazelcast.allow-list: cannot admit only the listed members on " + where + " (" + why
        + "); run with CAP_NET_ADMIN and nftables, or set allow-list: false to let anyone who reaches the port try to join");
  }

  static boolean isLoopback(String address) {
    try {
      return InetAddress.getByName(address).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  @Override
  public void close() {
    if (table != null) {
      table.close();
    }
  }
}
