package io.tcpopt.servicenode.intercept.transparent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.common.config.ConfigTree;
import io.tcpopt.common.policy.PolicyDocument;
import io.tcpopt.common.tls.DemoCertificates;
import io.tcpopt.servicenode.ServiceNodeConfig;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code deploy/examples/testbed/*.yaml} stay valid and say what the testbed needs (runs without root). */
class TestbedConfigsTest {
  @TempDir Path dir;

  @BeforeEach
  void certificates() {
    DemoCertificates.generate(dir.resolve("certs"), List.of("branch-1", "dc-1"));
  }

  @Test
  void branchInterceptsClientToServerFlowsTransparentlyAndDialsTheDc() throws Exception {
    ConfigTree root = load("branch.yaml");
    ServiceNodeConfig c = ServiceNodeConfig.from(root.section("service-node"), root.get("node").string("name"), root.get("node").string("site"));

    assertEquals("branch-1", c.nodeName());
    assertEquals(new InetSocketAddress("198.18.0.1", 7800), c.wan().listen());
    assertFalse(c.wan().plaintext());
    assertEquals(1, c.wan().connections());
    assertEquals("bbr", c.wan().congestionControl());
    assertEquals(250_000_000L, c.wan().link().bandwidthBitsPerSecond());
    assertEquals(Duration.ofMillis(200), c.wan().link().rtt());
    assertEquals(1, c.peers().size());
    assertEquals(new InetSocketAddress("198.18.0.2", 7800), c.peers().get(0).address());
    assertEquals(List.of("198.19.1.0/24", "2001:2:0:1901::/64"), c.peers().get(0).prefixes());
    ServiceNodeConfig.Transparent t = c.interception().transparent();
    assertEquals(7900, t.port());
    assertTrue(t.installRules());
    assertEquals(List.of("198.18.1.0/24", "2001:2:0:1801::/64"), t.sources());
    assertEquals(List.of("198.19.1.0/24", "2001:2:0:1901::/64"), t.destinations());
    // The rules these settings produce are valid for nft (prefix syntax checked here).
    assertTrue(String.join("; ", TproxyRules.tableBody(new TproxyRules.Diversion(t.port(), t.sources(), t.destinations()), 1))
        .contains("tproxy ip to :7900"));
    assertTrue(String.join("; ", TproxyRules.tableBody(new TproxyRules.Diversion(t.port(), t.sources(), t.destinations()), 1))
        .contains("ip6 saddr { 2001:2:0:1801::/64 } ip6 daddr { 2001:2:0:1901::/64 } meta mark set 0x1 tproxy ip6 to :7900"));
    assertTrue(c.clientAddress().requests("dc"), "the branch asks the DC to connect from the client's address");

    PolicyDocument policy = PolicyDocument.fromTree(root.get("policy"));
    assertEquals("testbed-appqoe", policy.name());
  }

  @Test
  void dcAcceptsTheBranchAndInterceptsNothing() throws Exception {
    ConfigTree root = load("dc.yaml");
    ServiceNodeConfig c = ServiceNodeConfig.from(root.section("service-node"), root.get("node").string("name"), root.get("node").string("site"));

    assertEquals("dc-1", c.nodeName());
    assertEquals(new InetSocketAddress("198.18.0.2", 7800), c.wan().listen());
    assertFalse(c.wan().plaintext());
    assertEquals(List.of(new ServiceNodeConfig.Peer("branch-1", "branch", null, List.of())), c.peers(), "the branch, accepted and not dialled");
    assertTrue(c.interception().transparent() == null, "the DC intercepts nothing");
    assertTrue(c.clientAddress().allows("branch"), "the DC connects from the client's address for the branch's flows");
    assertFalse(c.clientAddress().allows("elsewhere"));
    assertEquals(List.of("198.19.1.0/24", "2001:2:0:1901::/64"), c.serves(), "the DC connects peers' streams to its own LAN only");
  }

  private ConfigTree load(String name) throws Exception {
    Path base = Path.of(System.getProperty("basedir", System.getProperty("user.dir")));
    Path example = base.resolveSibling("deploy").resolve("examples/testbed").resolve(name);
    String yaml = Files.readString(example).replace("deploy/examples/testbed/certs/", dir.resolve("certs") + "/");
    return ConfigTree.parse(yaml, name);
  }
}
