package io.tcpopt.common.policy;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Throughput of {@link CompiledPolicy#classify} on one core with 10,000 prefixes spread over eight
 * prefix lists and 20 realistic sequences, on a pre-generated mix of flows (about half inside the
 * policy's prefixes, the rest anywhere). Not a test: run it by hand as described in {@code
 * docs/benchmarks-classifier.md}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@Threads(1)
public class ClassifierBenchmark {
  static final int PREFIXES = 10_000;
  private static final int FLOWS = 1 << 16;

  /** Share of IPv6 flows, in percent. */
  @Param({"0", "20"})
  public int ipv6Percent;

  private CompiledPolicy policy;
  private FlowKey[] flows;
  private int next;

  @Setup(Level.Trial)
  public void setUp() throws UnknownHostException {
    Random random = new Random(42);
    List<String> v4 = new ArrayList<>();
    List<String> v6 = new ArrayList<>();
    policy = CompiledPolicy.compile(PolicyDocument.parse(policyYaml(random, v4, v6), "benchmark"));
    flows = new FlowKey[FLOWS];
    for (int i = 0; i < FLOWS; i++) {
      boolean ipv6 = random.nextInt(100) < ipv6Percent;
      flows[i] =
          new FlowKey(
              random.nextInt(4) == 0 ? 20 : 10,
              address(random, ipv6 ? v6 : v4, ipv6),
              1024 + random.nextInt(60000),
              address(random, ipv6 ? v6 : v4, ipv6),
              PORTS[random.nextInt(PORTS.length)]);
    }
  }

  private static final int[] PORTS = {80, 443, 443, 443, 22, 25, 53, 445, 1433, 3389, 5201, 8080, 8443, 9000};

  @Benchmark
  public Decision classify() {
    return policy.classify(flows[next++ & (FLOWS - 1)]);
  }

  /**
   * The policy: branch, datacenter, cloud, partner, guest, voice, backup and blocked lists, 10,000
   * prefixes in all (one in ten IPv6), and 20 sequences mixing prefix lists, VPNs and ports.
   */
  static String policyYaml(Random r, List<String> v4, List<String> v6) {
    String[] lists = {"BRANCHES", "DATACENTERS", "CLOUD", "PARTNERS", "GUEST", "VOICE", "BACKUP", "BLOCKED"};
    int[] shares = {3000, 2000, 2000, 1000, 800, 500, 400, 300};
    StringBuilder y = new StringBuilder("prefix-lists:\n");
    for (int l = 0; l < lists.length; l++) {
      y.append("  ").append(lists[l]).append(":\n");
      for (int i = 0; i < shares[l]; i++) {
        String cidr;
        if (i % 10 == 9) {
          cidr = String.format("2001:db8:%x:%x::/64", l, i);
          v6.add(cidr);
        } else {
          int length = 16 + r.nextInt(13); // /16 to /28
          int address = ((l + 1) << 24 | r.nextInt(1 << 24)) & (int) (0xffffffffL << (32 - length));
          cidr = ((address >>> 24) & 0xff) + "." + ((address >>> 16) & 0xff) + "." + ((address >>> 8) & 0xff) + "." + (address & 0xff) + "/" + length;
          v4.add(cidr);
        }
        y.append("    - \"").append(cidr).append("\"\n");
      }
    }
    y.append(
        """
        service-node-groups:
          SNG-BRANCH: { site: branch }
          SNG-DC: { site: dc }
        tcp-profiles:
          bulk: { parent: tcp-wan-optimized, send-buffer: 32MiB, receive-buffer: 32MiB }
        data-policy:
          name: benchmark
          sequences:
            - { seq: 1, match: { source-prefix-list: BLOCKED }, action: drop }
            - { seq: 2, match: { destination-prefix-list: BLOCKED }, action: drop }
            - { seq: 5, match: { destination-port: [22, 3389] }, action: pass-through }
            - { seq: 6, match: { vpn: 20, source-prefix-list: GUEST }, action: pass-through }
            - { seq: 7, match: { source-prefix-list: VOICE, destination-port: 5060-5080 }, action: pass-through }
            - seq: 10
              match: { vpn: 10, source-prefix-list: BRANCHES, destination-prefix-list: DATACENTERS, destination-port: [80, 443, 8080, 8443] }
              action: { optimize: { service-node-group: SNG-BRANCH } }
            - seq: 11
              match: { vpn: 10, source-prefix-list: DATACENTERS, destination-prefix-list: BRANCHES }
              action: { optimize: { service-node-group: SNG-DC } }
            - seq: 12
              match: { vpn: 10, source-prefix-list: BRANCHES, destination-prefix-list: BACKUP, destination-port: 9000-9100 }
              action: { optimize: { service-node-group: SNG-BRANCH, profiles: { wan: bulk } } }
            - seq: 13
              match: { vpn: 10, source-prefix-list: BRANCHES, destination-prefix-list: CLOUD, destination-port: 443 }
              action: { optimize: { service-node-group: SNG-BRANCH } }
            - seq: 14
              match: { source-prefix-list: PARTNERS, destination-prefix-list: DATACENTERS, destination-port: [443, 1433] }
              action: { optimize: { service-node-group: SNG-DC } }
            - { seq: 15, match: { source-prefix-list: PARTNERS }, action: pass-through }
            - { seq: 16, match: { vpn: [10, 20], destination-prefix-list: GUEST }, action: drop }
            - seq: 20
              match: { source-prefix-list: CLOUD, destination-prefix-list: BRANCHES, source-port: [443, 8443] }
              action: { optimize: { service-node-group: SNG-BRANCH } }
            - { seq: 21, match: { destination-prefix-list: VOICE }, action: pass-through }
            - seq: 22
              match: { source-prefix-list: BACKUP, destination-prefix-list: DATACENTERS }
              action: { optimize: { service-node-group: SNG-DC, profiles: { client: bulk, wan: bulk, server: bulk } } }
            - { seq: 23, match: { destination-port: 445 }, action: drop }
            - seq: 30
              match: { source-prefix-list: DATACENTERS, destination-prefix-list: DATACENTERS }
              action: pass-through
            - seq: 31
              match: { vpn: 10, destination-prefix-list: CLOUD, destination-port: 80 }
              action: { optimize: { service-node-group: SNG-BRANCH } }
            - { seq: 40, match: { vpn: 20 }, action: pass-through }
            - { seq: 50, match: { source-port: 0-1023, protocol: tcp }, action: drop }
          default-action: pass-through
        """);
    return y.toString();
  }

  /** Half the time an address inside a random prefix of the policy, otherwise any address. */
  private static InetAddress address(Random r, List<String> prefixes, boolean ipv6) throws UnknownHostException {
    byte[] a = new byte[ipv6 ? 16 : 4];
    r.nextBytes(a);
    if (r.nextBoolean()) {
      Cidr c = Cidr.parse(prefixes.get(r.nextInt(prefixes.size())));
      byte[] n = c.network().getAddress();
      for (int bit = 0; bit < c.prefixLength(); bit++) {
        int mask = 0x80 >>> (bit % 8);
        a[bit / 8] = (byte) ((a[bit / 8] & ~mask) | (n[bit / 8] & mask));
      }
    }
    return InetAddress.getByAddress(a);
  }

  /** Runs this benchmark with the annotations' settings; JMH command-line options also work via org.openjdk.jmh.Main. */
  public static void main(String[] args) throws RunnerException {
    new Runner(new OptionsBuilder().include(ClassifierBenchmark.class.getSimpleName()).build()).run();
  }
}
