package io.tcpopt.servicenode;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tcpopt.common.policy.Action;
import io.tcpopt.common.policy.DataReduction;
import io.tcpopt.common.policy.Verdict;
import io.tcpopt.reduction.ReductionSettings;
import io.tcpopt.reduction.ReductionStats;
import java.net.InetSocketAddress;

/**
 * A branch node and a DC node on loopback (plaintext sessions) whose policy optimizes every flow
 * with the data reduction a test sets ({@link #mode}), each with its own chunk cache settings, and
 * either of which can be restarted on its old WAN port while the other keeps running.
 */
final class ReductionPair implements AutoCloseable {
  final InetSocketAddress target;
  final int connections;
  private final ReductionSettings branchSettings;
  private final ReductionSettings dcSettings;
  volatile DataReduction mode = DataReduction.OFF;
  ServiceNode dc;
  ServiceNode branch;

  ReductionPair(InetSocketAddress target, int connections, ReductionSettings branchSettings, ReductionSettings dcSettings) {
    this.target = target;
    this.connections = connections;
    this.branchSettings = branchSettings;
    this.dcSettings = dcSettings;
    this.dc = startDc(0);
    try {
      this.branch = startBranch();
    } catch (RuntimeException e) {
      dc.close();
      throw e;
    }
    awaitSessions();
  }

  private FlowDecider decider() {
    return (client, destination) -> new Verdict(Action.OPTIMIZE, "test", 1, null, null, null, 0, mode);
  }

  private ServiceNode startDc(int port) {
    String yaml = "service-node:\n  wan: { listen: 127.0.0.1:" + port + ", connections: " + connections + ", plaintext: true }\n"
        + "  peers: [ { name: branch-1, site: branch } ]\n"
        + "  serves: [127.0.0.0/8]   # the test servers run on loopback\n";
    return ServiceNode.start(TestNodes.config(yaml, "dc-1", "dc"), decider(), new SimpleMeterRegistry(), dcSettings);
  }

  private ServiceNode startBranch() {
    String yaml = "service-node:\n"
        + "  wan: { listen: 127.0.0.1:0, connections: " + connections + ", plaintext: true }\n"
        + "  peers:\n"
        + "    - { name: dc-1, site: dc, address: 127.0.0.1:" + dc.wanAddress().getPort() + ", prefixes: [127.0.0.0/8] }\n"
        + "  interception:\n"
        + "    listeners:\n"
        + "      - { listen: 127.0.0.1:0, target: " + target.getAddress().getHostAddress() + ":" + target.getPort() + ", site: dc }\n";
    return ServiceNode.start(TestNodes.config(yaml, "branch-1", "branch"), decider(), new SimpleMeterRegistry(), branchSettings);
  }

  /** Stops the DC node (its flows are reset) and starts a new one on the same WAN port. */
  void restartDc() {
    int port = dc.wanAddress().getPort();
    dc.close();
    dc = startDc(port);
    awaitSessions();
  }

  /** Stops the branch node and starts a new one (a new listener port). */
  void restartBranch() {
    branch.close();
    branch = startBranch();
    awaitSessions();
  }

  void awaitSessions() {
    TestNodes.await(() -> TestNodes.poolsUp(branch, dc), 20_000, "sessions up");
  }

  InetSocketAddress listener() {
    return branch.listenerAddresses().get(0);
  }

  /** What the branch's engine counted for its peer (uploads go out, downloads come in). */
  ReductionStats.Snapshot branchStats() {
    return branch.reduction().engine().peer("dc-1").stats().snapshot();
  }

  /** What the DC's engine counted for its peer (downloads go out). */
  ReductionStats.Snapshot dcStats() {
    return dc.reduction().engine().peer("branch-1").stats().snapshot();
  }

  @Override
  public void close() {
    try {
      branch.close();
    } finally {
      dc.close();
    }
  }
}
