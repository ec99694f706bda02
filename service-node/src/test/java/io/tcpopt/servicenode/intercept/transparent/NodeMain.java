package io.tcpopt.servicenode.intercept.transparent;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tcpopt.common.config.ConfigTree;
import io.tcpopt.common.policy.Verdict;
import io.tcpopt.servicenode.PeerSessionStatus;
import io.tcpopt.servicenode.ServiceNode;
import io.tcpopt.servicenode.ServiceNodeConfig;
import io.tcpopt.servicenode.flow.FlowKind;
import io.tcpopt.servicenode.flow.FlowRecord;
import io.tcpopt.servicenode.flow.FlowTableSnapshot;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/**
 * A service node for namespace tests, run as its own process inside a namespace: reads a node
 * config file (contract §1: {@code node.name}, {@code node.site}, the {@code service-node} section),
 * optimizes every flow a peer serves, and answers stdin commands on stdout (its protocol with the
 * test, hence {@code System.out}):
 *
 * <ul>
 *   <li>{@code sessions}: {@code SESSIONS peer=NAME up=N configured=N express=N cc=NAME ...} (one line)
 *   <li>{@code flows}: {@code FLOWS active=N closed=N optimized=N pass-through=N dropped=N}
 *   <li>{@code quit}: closes the node (removing its rules), prints {@code CLOSED}, exits 0
 * </ul>
 */
public final class NodeMain {
  private static final PrintStream OUT = System.out;

  private NodeMain() {}

  public static void main(String[] args) throws Exception {
    ConfigTree root = ConfigTree.load(Path.of(args[0]));
    ConfigTree node = root.get("node");
    ServiceNodeConfig config = ServiceNodeConfig.from(root.section("service-node"), node.string("name"), node.string("site"));
    ServiceNode serviceNode =
        ServiceNode.start(config, (client, destination) -> Verdict.optimize("namespace test", null, null), new SimpleMeterRegistry());
    say("READY wan=" + serviceNode.wanAddress());
    BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    try {
      for (String line = stdin.readLine(); line != null && !line.equals("quit"); line = stdin.readLine()) {
        switch (line) {
          case "sessions" -> say(sessions(serviceNode.sessions()));
          case "flows" -> say(flows(serviceNode.flows()));
          default -> say("UNKNOWN " + line);
        }
      }
    } finally {
      serviceNode.close();
    }
    say("CLOSED");
    System.exit(0);
  }

  private static String sessions(List<PeerSessionStatus> sessions) {
    StringBuilder b = new StringBuilder("SESSIONS");
    for (PeerSessionStatus s : sessions) {
      b.append(" peer=").append(s.name()).append(" up=").append(s.connectionsUp()).append(" configured=").append(s.connectionsConfigured())
          .append(" express=").append(s.expressUp()).append(" cc=").append(s.congestionControl());
    }
    return b.toString();
  }

  private static String flows(FlowTableSnapshot snapshot) {
    long optimized = 0;
    long passThrough = 0;
    long dropped = 0;
    for (List<FlowRecord> records : List.of(snapshot.active(), snapshot.closed())) {
      for (FlowRecord r : records) {
        if (r.kind() == FlowKind.OPTIMIZED) {
          optimized++;
        } else if (r.kind() == FlowKind.PASS_THROUGH) {
          passThrough++;
        } else {
          dropped++;
        }
      }
    }
    return "FLOWS active=" + snapshot.active().size() + " closed=" + snapshot.closed().size() + " optimized=" + optimized
        + " pass-through=" + passThrough + " dropped=" + dropped;
  }

  private static synchronized void say(String line) {
    OUT.println(line);
    OUT.flush();
  }
}
