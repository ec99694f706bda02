package io.tcpopt.controller;

import io.tcpopt.common.net.FreePort;
import io.tcpopt.controller.cluster.ClusterConfig;
import io.tcpopt.controller.cluster.ClusterMember;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** Hazelcast settings for tests: loopback, free explicit ports, a unique cluster name, short timing. */
public final class TestClusters {
  static {
    System.setProperty("hazelcast.logging.type", "slf4j");
  }

  private TestClusters() {}

  public static int freePort() {
    try {
      return FreePort.belowEphemeralRange();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Configs for {@code n} members of one new cluster. */
  public static List<ClusterConfig> configs(int n) {
    String name = "tcpopt-test-" + UUID.randomUUID().toString().substring(0, 8);
    List<Integer> ports = new ArrayList<>();
    List<String> members = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int port = freePort();
      ports.add(port);
      members.add("127.0.0.1:" + port);
    }
    List<ClusterConfig> out = new ArrayList<>();
    for (int port : ports) {
      // The first member lists only itself so that it forms the cluster at once instead of
      // probing members that are not started yet; the others find it through their full list.
      List<String> list = out.isEmpty() ? List.of("127.0.0.1:" + port) : members;
      out.add(
          new ClusterConfig(
              name, "127.0.0.1", port, list, Duration.ofSeconds(1), Duration.ofSeconds(3), Duration.ZERO,
              ClusterConfig.majority(n), true));
    }
    return out;
  }

  public static ClusterConfig single() {
    return configs(1).get(0);
  }

  /** Starts a member storing what a controller stores. */
  public static ClusterMember start(ClusterConfig config, String name) {
    return ClusterMember.start(config, name, Controller.STORED_TYPES);
  }
}
