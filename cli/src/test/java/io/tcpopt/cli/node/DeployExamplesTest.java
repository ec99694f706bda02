package io.tcpopt.cli.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.common.config.ConfigTree;
import io.tcpopt.common.policy.CompiledPolicy;
import io.tcpopt.common.policy.DataReduction;
import io.tcpopt.common.policy.FlowKey;
import io.tcpopt.common.policy.PolicyDocument;
import io.tcpopt.common.profile.LegProfiles;
import io.tcpopt.common.tls.DemoCertificates;
import io.tcpopt.controller.ControllerConfig;
import io.tcpopt.servicenode.ServiceNodeConfig;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every example under deploy/ parses and validates with the real config readers. */
class DeployExamplesTest {
  private static final Path DEPLOY = Path.of("..", "deploy");

  @TempDir Path dir;

  @Test
  void nodeExamplesAreValid() throws Exception {
    List<Path> files;
    try (Stream<Path> s = Files.walk(DEPLOY.resolve("examples"))) {
      // Policy files (a top-level data-policy) are not node configs (policyExamplesAreValid).
      files = s.filter(p -> p.toString().endsWith(".yaml") && !isPolicy(p)).sorted().toList();
    }
    assertFalse(files.isEmpty(), "no examples found under " + DEPLOY.toAbsolutePath());
    List<String> names = new ArrayList<>();
    for (Path f : files) {
      names.add(ConfigTree.load(f).get("node").string("name"));
    }
    DemoCertificates.generate(dir.resolve("certs"), names.stream().distinct().toList());
    Files.createDirectories(dir.resolve("secrets"));
    Files.writeString(dir.resolve("secrets/operator-token"), "example-token\n");
    for (Path f : files) {
      // The testbed's configs name their files under deploy/examples/testbed/ (run from the repository root).
      String text = Files.readString(f).replace("deploy/examples/testbed/", "")
          .replace("certs/", dir.resolve("certs") + "/").replace("secrets/", dir.resolve("secrets") + "/");
      NodeConfig c = NodeConfig.from(ConfigTree.parse(text, f.toString()));
      if (c.roles().contains(Role.SERVICE_NODE)) {
        ServiceNodeConfig sn = ServiceNodeConfig.from(c.serviceNode(), c.name(), c.site());
        assertEquals(c.name(), sn.nodeName());
      }
      if (c.roles().contains(Role.CONTROLLER)) {
        ControllerConfig controller = ControllerConfig.from(c.controller(), c.name(), c.site());
        InetAddress hazelcast = InetAddress.getByName(controller.cluster().bindAddress());
        assertTrue(hazelcast.isLoopbackAddress() || hazelcast.isSiteLocalAddress(),
            f + ": Hazelcast must be on a private or loopback address, not " + hazelcast.getHostAddress());
        if (c.roles().contains(Role.SERVICE_NODE)) {
          InetSocketAddress wan = ServiceNodeConfig.from(c.serviceNode(), c.name(), c.site()).wan().listen();
          assertFalse(hazelcast.equals(wan.getAddress()), f + ": Hazelcast on the WAN address");
        }
      }
      if (!c.policy().keys().isEmpty()) {
        PolicyDocument.fromTree(c.policy());
      }
    }
  }

  private static boolean isPolicy(Path f) {
    return ConfigTree.load(f).has("data-policy");
  }

  @Test
  void policyExamplesAreValid() throws Exception {
    Path f = DEPLOY.resolve("policy/appqoe.yaml");
    assertEquals("vpn10-appqoe", PolicyDocument.parse(Files.readString(f), f.toString()).name());
    Path testbed = DEPLOY.resolve("examples/policy.yaml");
    assertEquals("testbed-bulk-only", PolicyDocument.parse(Files.readString(testbed), testbed.toString()).name());
    Path oneconnect = DEPLOY.resolve("examples/testbed/oneconnect.yaml");
    PolicyDocument reuse = PolicyDocument.parse(Files.readString(oneconnect), oneconnect.toString());
    assertEquals("testbed-oneconnect", reuse.name());
    CompiledPolicy compiled = CompiledPolicy.compile(reuse);
    LegProfiles web = compiled.classify(key("198.18.1.2", "198.19.1.2", 8080)).profiles();
    assertEquals("testbed-web", web.httpReuse().name());
    assertEquals(64, web.httpReuse().maxSize());
    assertNull(compiled.classify(key("198.18.1.2", "198.19.1.2", 5201)).profiles().httpReuse(), "reuse for port 8080 only");
    assertNull(compiled.classify(key("198.18.1.2", "198.19.1.3", 8080)).profiles().httpReuse(), "reuse for the testbed server only");
    Path reduction = DEPLOY.resolve("examples/testbed/data-reduction.yaml");
    CompiledPolicy reduced = CompiledPolicy.compile(PolicyDocument.parse(Files.readString(reduction), reduction.toString()));
    assertEquals(new DataReduction(DataReduction.Compression.ZSTD, true), reduced.classify(key("198.18.1.2", "198.19.1.9", 443)).dataReduction(),
        "every branch -> DC flow: zstd and deduplication");
    assertEquals(DataReduction.OFF, reduced.classify(key("198.19.1.2", "198.18.1.2", 443)).dataReduction(), "DC -> branch passes through");
  }

  private static FlowKey key(String source, String destination, int port) throws Exception {
    return new FlowKey(0, InetAddress.getByName(source), 40000, InetAddress.getByName(destination), port);
  }
}
