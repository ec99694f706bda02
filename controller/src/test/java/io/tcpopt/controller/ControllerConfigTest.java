package io.tcpopt.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.common.config.ConfigException;
import io.tcpopt.common.config.ConfigTree;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ControllerConfigTest {
  private static ControllerConfig parse(String yaml) {
    ConfigTree root = ConfigTree.parse(yaml, "node.yaml");
    return ControllerConfig.from(root.section("controller"), "branch-1", "branch");
  }

  @Test
  void defaults() {
    ControllerConfig c = parse("controller: {}\n");
    assertEquals(ControllerConfig.DEFAULT_LISTEN, c.listen());
    assertEquals(Optional.empty(), c.token());
    assertEquals(Duration.ofSeconds(5), c.heartbeatExpiry());
    assertEquals("tcpopt", c.cluster().clusterName());
    assertEquals(List.of("127.0.0.1:5701"), c.cluster().members());
    assertEquals(1, c.cluster().minimumClusterSize());
    assertEquals(4 << 20, c.maxInboundMessageSize());
  }

  @Test
  void fullSection(@TempDir Path dir) throws Exception {
    Path token = Files.writeString(dir.resolve("token"), "from-file\n");
    ControllerConfig c = parse("""
        controller:
          listen: 127.0.0.1:0
          token-file: %s
          max-inbound-message-size: 1MiB
          max-concurrent-calls: 8
          heartbeat-expiry: 2s
          handoff:
            listeners: [ { listen: 127.0.0.1:0, target: 127.0.0.1:5201 } ]
            connect-timeout: 1s
          hazelcast:
            cluster-name: lab
            port: 5801
            members: [127.0.0.1:5801, 127.0.0.1:5802, 127.0.0.1:5803]
            heartbeat: 1s
            max-no-heartbeat: 4s
        """.formatted(token));
    assertEquals(0, c.listen().getPort());
    assertEquals(Optional.of("from-file"), c.token());
    assertEquals(1 << 20, c.maxInboundMessageSize());
    assertEquals(8, c.maxConcurrentCallsPerConnection());
    assertEquals(2, c.cluster().minimumClusterSize(), "majority of 3");
    assertEquals(Duration.ofSeconds(4), c.cluster().maxNoHeartbeat());
    assertEquals("branch-1", c.nodeName());
    assertEquals(5201, c.handoffListeners().get(0).target().getPort());
    assertEquals(Duration.ofSeconds(1), c.handoffConnectTimeout());
  }

  @Test
  void mistakesNameTheField() {
    assertEquals("controller.hazelcast.membres: unknown setting (expected one of cluster-name, bind-address, port, members, heartbeat, max-no-heartbeat, join-wait, minimum-cluster-size, allow-list)",
        error("controller: { hazelcast: { membres: [] } }\n"));
    assertEquals("controller.token-file: give either token or token-file, not both",
        error("controller: { token: a, token-file: b }\n"));
    assertTrue(error("controller: { heartbeat-expiry: soon }\n").startsWith("controller.heartbeat-expiry: expected a duration"));
    assertEquals("controller.hazelcast.heartbeat: must be a whole number of seconds (Hazelcast's granularity), got 500ms",
        error("controller: { hazelcast: { heartbeat: 500ms } }\n"));
    assertEquals("controller.hazelcast.minimum-cluster-size: must be between 1 and 1, got 2",
        error("controller: { hazelcast: { minimum-cluster-size: 2 } }\n"));
    assertTrue(error("controller: { tls: { certificate: /nope.crt, private-key: /nope.key, trusted: /nope.ca } }\n")
        .startsWith("controller.tls.certificate: "));
  }

  private static String error(String yaml) {
    return assertThrows(ConfigException.class, () -> parse(yaml)).getMessage();
  }
}
