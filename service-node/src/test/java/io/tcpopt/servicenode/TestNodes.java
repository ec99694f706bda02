package io.tcpopt.servicenode;

import static org.junit.jupiter.api.Assertions.fail;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tcpopt.common.config.ConfigTree;
import io.tcpopt.common.policy.CompiledPolicy;
import io.tcpopt.common.policy.FlowKey;
import io.tcpopt.common.policy.PolicyDocument;
import io.tcpopt.common.tls.DemoCertificates;
import io.tcpopt.common.tls.TlsFiles;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;

/**
 * A branch node and a DC node on loopback, in one JVM with separate event loop groups. The branch
 * dials the DC ({@code connections} per pool) and has one explicit listener per target, all
 * served by site {@code dc}.
 */
final class TestNodes implements AutoCloseable {
  final ServiceNode dc;
  final ServiceNode branch;
  final SimpleMeterRegistry branchMeters;
  final SimpleMeterRegistry dcMeters;
  final int connections;

  private TestNodes(ServiceNode dc, ServiceNode branch, int connections, SimpleMeterRegistry branchMeters, SimpleMeterRegistry dcMeters) {
    this.dc = dc;
    this.branch = branch;
    this.connections = connections;
    this.branchMeters = branchMeters;
    this.dcMeters = dcMeters;
  }

  static TestNodes start(Path certs, int connections, List<InetSocketAddress> targets, String wanExtra, String lanExtra) {
    return start(certs, connections, targets, wanExtra, lanExtra, "");
  }

  /**
   * @param certs directory for demo certificates (mutual TLS), or null for plaintext sessions
   * @param wanExtra extra YAML lines for both nodes' {@code wan} section (indented 4 spaces)
   * @param lanExtra extra {@code lan} settings in flow style, e.g. {@code "connect-timeout: 300ms"}
   * @param nodeExtra extra lines for both nodes' {@code service-node} section, e.g. {@code "flows: { closed-history: 10 }"}
   */
  static TestNodes start(Path certs, int connections, List<InetSocketAddress> targets, String wanExtra, String lanExtra, String nodeExtra) {
    return start(certs, connections, targets, wanExtra, lanExtra, nodeExtra, UnaryOperator.identity());
  }

  /**
   * As above; the branch dials the DC at {@code dialVia.apply(dc's WAN address)}, e.g. a {@link
   * WanLinkProxy} in between.
   */
  static TestNodes start(Path certs, int connections, List<InetSocketAddress> targets, String wanExtra, String lanExtra, String nodeExtra,
      UnaryOperator<InetSocketAddress> dialVia) {
    String extra = nodeExtra == null || nodeExtra.isEmpty() ? "" : "  " + nodeExtra + "\n";
    Map<String, TlsFiles> tls = certs == null ? null : DemoCertificates.generate(certs, List.of("branch-1", "dc-1"));
    SimpleMeterRegistry dcMeters = new SimpleMeterRegistry();
    String dcYaml = "service-node:\n"
        + wan(tls == null ? null : tls.get("dc-1"), connections, wanExtra)
        + "  peers: [ { name: branch-1, site: branch } ]\n"
        + "  serves: [127.0.0.0/8]   # the test servers run on loopback\n"
        + "  lan: { " + lanExtra + " }\n" + extra;
    ServiceNode dc = ServiceNode.start(config(dcYaml, "dc-1", "dc"), null, dcMeters);
    InetSocketAddress dcWan;
    try {
      dcWan = dialVia.apply(dc.wanAddress());
    } catch (RuntimeException e) {
      dc.close();
      throw e;
    }
    StringBuilder listeners = new StringBuilder();
    for (InetSocketAddress t : targets) {
      listeners.append("      - { listen: 127.0.0.1:0, target: ").append(t.getAddress().getHostAddress()).append(':').append(t.getPort())
          .append(", site: dc }\n");
    }
    String branchYaml = "service-node:\n"
        + wan(tls == null ? null : tls.get("branch-1"), connections, wanExtra)
        + "  peers:\n"
        + "    - { name: dc-1, site: dc, address: 127.0.0.1:" + dcWan.getPort() + ", prefixes: [127.0.0.0/8] }\n"
        + "  interception:\n"
        + "    listeners:\n" + listeners
        + "  lan: { " + lanExtra + " }\n" + extra;
    SimpleMeterRegistry branchMeters = new SimpleMeterRegistry();
    ServiceNode branch;
    try {
      branch = ServiceNode.start(config(branchYaml, "branch-1", "branch"), null, branchMeters);
    } catch (RuntimeException e) {
      dc.close();
      throw e;
    }
    TestNodes nodes = new TestNodes(dc, branch, connections, branchMeters, dcMeters);
    nodes.awaitSessions();
    return nodes;
  }

  private static String wan(TlsFiles tls, int connections, String extra) {
    StringBuilder s = new StringBuilder("  wan:\n    listen: 127.0.0.1:0\n    connections: " + connections + "\n");
    if (tls == null) {
      s.append("    plaintext: true\n");
    } else {
      s.append("    tls: { certificate: '").append(tls.certificateChain()).append("', private-key: '").append(tls.privateKey())
          .append("', trusted: '").append(tls.trustedCertificates()).append("' }\n");
    }
    if (extra != null && !extra.isEmpty()) {
      s.append(extra);
    }
    return s.toString();
  }

  static ServiceNodeConfig config(String yaml, String name, String site) {
    return ServiceNodeConfig.from(ConfigTree.parse(yaml, "test").get("service-node"), name, site);
  }

  /** Waits until every pooled connection (an express one included) completed its HELLO at both ends. */
  void awaitSessions() {
    await(() -> poolsUp(branch, dc), 10_000, "sessions up");
  }

  /**
   * Whether every connection {@code dialler} pools to {@code acceptor}, its express one included,
   * completed its HELLO at both ends: waiting for a count below the pool's would race the rest.
   */
  static boolean poolsUp(ServiceNode dialler, ServiceNode acceptor) {
    int pooled = dialler.sessions().stream().mapToInt(PeerSessionStatus::connectionsConfigured).sum();
    return pooled > 0 && up(dialler) == pooled && up(acceptor) == pooled;
  }

  private static int up(ServiceNode node) {
    return node.sessions().stream().mapToInt(PeerSessionStatus::connectionsUp).sum();
  }

  /** The connections the branch's pool keeps to the DC: {@code connections}, plus the express one unless it is off. */
  int pooled() {
    return branch.sessions().stream().mapToInt(PeerSessionStatus::connectionsConfigured).sum();
  }

  int upAtBranch() {
    return up(branch);
  }

  int upAtDc() {
    return up(dc);
  }

  InetSocketAddress listener(int i) {
    return branch.listenerAddresses().get(i);
  }

  /** A node's decider for {@code policyYaml} (VPN 0), as the launcher's policy decider classifies flows. */
  static FlowDecider decider(String policyYaml) {
    CompiledPolicy compiled = CompiledPolicy.compile(PolicyDocument.parse(policyYaml, "test"));
    return (client, destination) -> compiled.classify(
        new FlowKey(0, client.getAddress(), client.getPort(), destination.getAddress(), destination.getPort()));
  }

  static void await(BooleanSupplier condition, long millis, String what) {
    long deadline = System.currentTimeMillis() + millis;
    while (!condition.getAsBoolean()) {
      if (System.currentTimeMillis() > deadline) {
        fail("timed out waiting for " + what);
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        fail("interrupted waiting for " + what);
      }
    }
  }

  @Override
  public void close() {
    try {
      branch.close();
    } finally {
      dc.close();
    }
  }

  /** A test class's teardown: the nodes (null when their start failed), then the servers behind them. */
  static void closeAll(TestNodes nodes, AutoCloseable... servers) throws Exception {
    try {
      if (nodes != null) {
        nodes.close();
      }
    } finally {
      for (AutoCloseable s : servers) {
        s.close();
      }
    }
  }
}
