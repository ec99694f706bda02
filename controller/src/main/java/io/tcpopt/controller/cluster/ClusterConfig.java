package io.tcpopt.controller.cluster;

import io.tcpopt.common.config.ConfigTree;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;

/**
 * Settings of the embedded Hazelcast member, from the {@code controller.hazelcast} section.
 *
 * @param clusterName cluster name; members with another name never join (default {@code tcpopt})
 * @param bindAddress the IP address the member binds and advertises, nothing else (default {@code
 *     127.0.0.1}); a private or management-network address, never a WAN or public one
 * @param port member port, no auto-increment (default 5701)
 * @param members every controller of the cluster as {@code HOST:PORT} (default: this member only)
 * @param heartbeat interval between member heartbeats, whole seconds (default 1s)
 * @param maxNoHeartbeat a member silent this long is removed, whole seconds (default 10s)
 * @param joinWait how long a starting member waits for others before forming a cluster alone
 *     (default 2s; 0 in tests that start members one after another)
 * @param minimumClusterSize members that must be visible for policy writes (default: a majority
 *     of {@code members})
 * @param allowList admit connections to the member port only from the listed members and this host
 *     (an nftables table the controller owns; default true; not needed, so not installed, on loopback)
 */
public record ClusterConfig(
    String clusterName,
    String bindAddress,
    int port,
    List<String> members,
    Duration heartbeat,
    Duration maxNoHeartbeat,
    Duration joinWait,
    int minimumClusterSize,
    boolean allowList) {

  public static final String DEFAULT_CLUSTER_NAME = "tcpopt";
  public static final int DEFAULT_PORT = 5701;

  public ClusterConfig {
    members = List.copyOf(members);
    if (clusterName.isBlank()) {
      throw new IllegalArgumentException("cluster-name must not be empty");
    }
    if (minimumClusterSize < 1) {
      throw new IllegalArgumentException("minimum-cluster-size must be at least 1");
    }
  }

  /** A majority of the listed members: 1 of 1, 2 of 3, 3 of 5. */
  public static int majority(int members) {
    return Math.max(1, members / 2 + 1);
  }

  /** Reads {@code section} (the {@code controller.hazelcast} mapping; may be empty). */
  public static ClusterConfig from(ConfigTree section) {
    section.requireOnly(
        "cluster-name", "bind-address", "port", "members", "heartbeat", "max-no-heartbeat", "join-wait",
        "minimum-cluster-size", "allow-list");
    String name = section.string("cluster-name", DEFAULT_CLUSTER_NAME);
    if (name.isBlank()) {
      throw section.get("cluster-name").error("must not be empty");
    }
    String bind = section.string("bind-address", "127.0.0.1");
    if (section.has("bind-address")) {
      requireSpecificAddress(section.get("bind-address"), bind);
    }
    int port = section.integer("port", DEFAULT_PORT, 1, 65535);
    List<String> members = section.strings("members");
    for (ConfigTree m : section.list("members")) {
      String s = m.asString();
      if (!s.matches("[^\\s:]+(:\\d{1,5})?|\\[[0-9a-fA-F:.]+\\](:\\d{1,5})?")) {
        throw m.error("expected HOST or HOST:PORT, got \"" + s + "\"");
      }
    }
    if (members.isEmpty()) {
      members = List.of(bind + ":" + port);
    }
    Duration heartbeat = wholeSeconds(section, "heartbeat", Duration.ofSeconds(1));
    Duration maxNoHeartbeat = wholeSeconds(section, "max-no-heartbeat", Duration.ofSeconds(10));
    if (maxNoHeartbeat.compareTo(heartbeat.multipliedBy(2)) < 0) {
      throw section.get("max-no-heartbeat").error("must be at least twice the heartbeat (" + heartbeat.toSeconds() + "s)");
    }
    Duration joinWait = section.duration("join-wait", Duration.ofSeconds(2));
    int minimum = section.integer("minimum-cluster-size", majority(members.size()), 1, members.size());
    return new ClusterConfig(name, bind, port, members, heartbeat, maxNoHeartbeat, joinWait, minimum, section.bool("allow-list", true));
  }

  /** An IP literal of one interface: no host name to resolve, no wildcard that binds every interface. */
  private static void requireSpecificAddress(ConfigTree field, String address) {
    if (!address.matches("[0-9.]+|[0-9a-fA-F:.]*:[0-9a-fA-F:.]*")) {
      throw field.error("expected the IP address of one interface (no host names), got \"" + address + "\"");
    }
    try {
      if (InetAddress.getByName(address).isAnyLocalAddress()) {
        throw field.error("must be one interface's address, not " + address + ": the member port must not listen on every interface");
      }
    } catch (UnknownHostException e) {
      throw field.error("not an IP address: \"" + address + "\"");
    }
  }

  private static Duration wholeSeconds(ConfigTree section, String key, Duration defaultValue) {
    Duration d = section.duration(key, defaultValue);
    if (d.toMillis() < 1000 || d.toMillis() % 1000 != 0) {
      throw section.get(key).error("must be a whole number of seconds (Hazelcast's granularity), got " + d.toMillis() + "ms");
    }
    return d;
  }
}
