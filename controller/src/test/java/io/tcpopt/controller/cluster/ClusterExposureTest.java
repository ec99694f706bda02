package io.tcpopt.controller.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.cluster.Member;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.IMap;
import io.tcpopt.common.config.ConfigException;
import io.tcpopt.common.config.ConfigTree;
import io.tcpopt.controller.TestClusters;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.Serializable;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * What a Hazelcast member of a controller accepts: member connections on its one address, Compact
 * data; not Java-serialized objects of arbitrary classes (the gadget's {@code readObject} never
 * runs, on either member), not a Hazelcast client, not a connection on another local address.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClusterExposureTest {
  private ClusterMember a;
  private ClusterMember b;
  private ClusterConfig config;

  /** A class whose deserialization would run code: stands in for any gadget chain's entry point. */
  static final class Gadget implements Serializable {
    private static final long serialVersionUID = 1L;
    static volatile boolean deserialized;

    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
      in.defaultReadObject();
      deserialized = true;
    }
  }

  /** An entry processor arriving as a Java-serialized object from a rogue member. */
  static final class Rewrite implements EntryProcessor<String, Object, Object> {
    private static final long serialVersionUID = 1L;
    static volatile boolean deserialized;

    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
      in.defaultReadObject();
      deserialized = true;
    }

    @Override
    public Object process(Map.Entry<String, Object> entry) {
      entry.setValue("rewritten");
      return null;
    }
  }

  @BeforeAll
  void startTwoMembers() {
    List<ClusterConfig> configs = TestClusters.configs(2);
    config = configs.get(0);
    a = TestClusters.start(configs.get(0), "ctl-a");
    b = TestClusters.start(configs.get(1), "ctl-b");
    assertEquals(2, a.visibleMembers());
  }

  @AfterAll
  void stop() {
    b.close();
    a.close();
  }

  @Test
  void anArbitrarySerializableIsNeverDeserialized() {
    IMap<String, Object> onA = a.hazelcast().getMap("tcpopt.exposure." + UUID.randomUUID());
    onA.put("gadget", new Gadget());
    IMap<String, Object> onB = b.hazelcast().getMap(onA.getName());
    RuntimeException refused = assertThrows(RuntimeException.class, () -> onB.get("gadget"));
    assertTrue(causes(refused).contains("is not allowed"), causes(refused));
    assertThrows(RuntimeException.class, () -> onA.get("gadget"));
    assertFalse(Gadget.deserialized, "the gadget's readObject must never run");
  }

  @Test
  void aJavaSerializedEntryProcessorIsRefusedByItsPartitionOwner() {
    IMap<String, Object> onA = a.hazelcast().getMap("tcpopt.exposure." + UUID.randomUUID());
    String key = keyOwnedBy(b);
    onA.put(key, "original");
    RuntimeException refused = assertThrows(RuntimeException.class, () -> onA.executeOnKey(key, new Rewrite()));
    assertTrue(causes(refused).contains("is not allowed"), causes(refused));
    assertFalse(Rewrite.deserialized);
    assertEquals("original", onA.get(key));
  }

  @Test
  void aHazelcastClientCannotConnect() {
    ClientConfig client = new ClientConfig();
    client.setClusterName(config.clusterName());
    client.getNetworkConfig().addAddress("127.0.0.1:" + config.port());
    client.getConnectionStrategyConfig().getConnectionRetryConfig().setClusterConnectTimeoutMillis(2000);
    client.setProperty("hazelcast.logging.type", "slf4j");
    assertThrows(IllegalStateException.class, () -> HazelcastClient.newHazelcastClient(client).shutdown());
  }

  @Test
  void theMemberListensOnItsOneAddressOnly() throws IOException {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", config.port()), 2000);
    }
    assertThrows(ConnectException.class, () -> {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.2", config.port()), 2000);
      }
    });
  }

  @Test
  void theBindAddressIsOneInterfacesIpAddress() {
    for (String bad : List.of("0.0.0.0", "::", "controller.example")) {
      ConfigException e = assertThrows(ConfigException.class,
          () -> ClusterConfig.from(ConfigTree.parse("bind-address: \"" + bad + "\"\n", "t")));
      assertTrue(e.getMessage().startsWith("bind-address: "), e.getMessage());
    }
  }

  private String keyOwnedBy(ClusterMember owner) {
    Member member = owner.hazelcast().getCluster().getLocalMember();
    for (int i = 0; i < 100_000; i++) {
      String key = "k" + i;
      if (a.hazelcast().getPartitionService().getPartition(key).getOwner().equals(member)) {
        return key;
      }
    }
    throw new AssertionError("no key owned by " + member);
  }

  private static String causes(Throwable t) {
    StringBuilder s = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      s.append(c).append(" <- ");
    }
    return s.toString();
  }
}
