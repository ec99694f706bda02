package io.tcpopt.controller.distribution;

import io.tcpopt.common.policy.CompiledPolicy;
import io.tcpopt.common.policy.PolicyDocument;
import io.tcpopt.common.policy.Verdict;
import io.tcpopt.controller.policy.ActivePolicy;
import io.tcpopt.controller.policy.PolicyVersion;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cost of one new-flow decision at a controller: classify with a small policy, then place the flow
 * on one of four members by weighted rendezvous hashing (with pinning). Run with
 * {@code java -cp <test classpath> org.openjdk.jmh.Main FlowDispatcherBenchmark}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class FlowDispatcherBenchmark {
  private static final String POLICY =
      """
      prefix-lists:
        BR10: [198.18.0.0/16]
        DC100: [198.19.0.0/16]
      service-node-groups:
        SNG: { site: branch }
      data-policy:
        name: bench
        sequences:
          - seq: 5
            match: { destination-prefix-list: DC100, destination-port: 22 }
            action: drop
          - seq: 10
            match: { source-prefix-list: BR10, destination-prefix-list: DC100 }
            action: { optimize: { service-node-group: SNG } }
        default-action: pass-through
      """;

  private FlowDispatcher dispatcher;
  private InetSocketAddress[] clients;
  private InetSocketAddress[] servers;
  private int i;

  @Setup
  public void setup() throws UnknownHostException {
    PolicyDocument doc = PolicyDocument.parse(POLICY, "bench");
    ActivePolicy active =
        new ActivePolicy(new PolicyVersion(1, doc.name(), POLICY, "bench", 0, ""), doc, CompiledPolicy.compile(doc), Map.of("SNG", "branch"));
    List<Candidate> members = new ArrayList<>();
    for (int n = 1; n <= 4; n++) {
      members.add(new Candidate("sn-" + n, 1000L * n, 10));
    }
    dispatcher = new FlowDispatcher(() -> active, (g, s) -> members, new FlowDistributor(100_000));
    Random r = new Random(1);
    clients = new InetSocketAddress[1 << 16];
    servers = new InetSocketAddress[1 << 16];
    for (int k = 0; k < clients.length; k++) {
      clients[k] = new InetSocketAddress(InetAddress.getByAddress(new byte[] {(byte) 198, 18, (byte) r.nextInt(256), (byte) r.nextInt(256)}),
          1024 + r.nextInt(60_000));
      servers[k] = new InetSocketAddress(InetAddress.getByAddress(new byte[] {(byte) 198, 19, 1, (byte) r.nextInt(256)}), 5201);
    }
  }

  @Benchmark
  public Verdict decide() {
    int k = i++ & (clients.length - 1);
    return dispatcher.decide(clients[k], servers[k]);
  }
}
