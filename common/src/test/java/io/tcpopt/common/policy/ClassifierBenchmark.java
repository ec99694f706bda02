package io.tcpopt.common.policy;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
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
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Throughput of {@link CompiledPolicy#classify} on one core with 10,000 prefixes spread over eight
 * prefix lists and 20 realistic sequences, on 65,536 pre-generated flows: mostly the traffic the
 * policy is written for (branch to datacenter, cloud and backup, datacenter to branch, partner to
 * datacenter), then any list to any list or to no list at all. Not a test: run it by hand as described in {@code
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
  private static final Logger LOG = LoggerFactory.getLogger(ClassifierBenchmark.class);
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
    List<List<String>> v4 = new ArrayList<>();
    List<List<String>> v6 = new ArrayList<>();
    PolicyDocument document = PolicyDocument.parse(policyYaml(random, v4, v6), "benchmark");
    int prefixes = document.prefixLists().values().stream().mapToInt(List::size).sum();
    if (prefixes != PREFIXES || document.sequences().size() != 20) {
      throw new IllegalStateException("benchmark policy drifted: " + prefixes + " prefixes, " + document.sequences().size() + " sequences");
    }
    policy = CompiledPolicy.compile(document);
    flows = new FlowKey[FLOWS];
    for (int i = 0; i < FLOWS; i++) {
      boolean ipv6 = random.nextInt(100) < ipv6Percent;
      List<List<String>> byList = ipv6 ? v6 : v4;
      // Mostly the traffic the policy is written for, then anything at all.
      int kind = random.nextInt(100);
      int from;
      int to;
      if (kind < 45) {
        from = BRANCHES;
        int d = random.nextInt(100);
        to = d < 60 ? DATACENTERS : d < 85 ? CLOUD : BACKUP;
      } else if (kind < 60) {
        from = DATACENTERS;
        to = BRANCHES;
      } else if (kind < 70) {
        from = PARTNERS;
        to = DATACENTERS;
      } else {
        from = random.nextInt(LISTS.length + 2) - 2; // negative: an address in no list
        to = random.nextInt(LISTS.length + 2) - 2;
      }
      flows[i] =
          new FlowKey(
              random.nextInt(10) == 0 ? 20 : 10,
              address(random, from < 0 ? null : byList.get(from), ipv6),
              1024 + random.nextInt(60000),
              address(random, to < 0 ? null : byList.get(to), ipv6),
              PORTS[random.nextInt(PORTS.length)]);
    }
  }

  private static final int[] PORTS = {80, 443, 443, 443, 22, 25, 53, 445, 1433, 3389, 5201, 8080, 8443, 9000};

  @Benchmark
  public Verdict classify() {
    return policy.classify(flows[next++ & (FLOWS - 1)]);
  }

  /**
   * The policy: branch, datacenter, cloud, partner, guest, voice, backup and blocked lists, 10,000
   * prefixes in all (one in ten IPv6), and 20 sequences mixing prefix lists, VPNs and ports.
   */
  private static final String[] LISTS = {"BRANCHES", "DATACENTERS", "CLOUD", "PARTNERS", "GUEST", "VOICE", "BACKUP", "BLOCKED"};
  private static final int BRANCHES = 0;
  private static final int DATACENTERS = 1;
  private static final int CLOUD = 2;
  private static final int PARTNERS = 3;
  private static final int BACKUP = 6;

  /** Fills {@code v4} and {@code v6} with the prefixes of each list, by list index. */
  static String policyYaml(Random r, List<List<String>> v4, List<List<String>> v6) {
    int[] shares = {3000, 2000, 2000, 1000, 800, 500, 400, 300};
    StringBuilder y = new StringBuilder("prefix-lists:\n");
    for (int l = 0; l < LISTS.length; l++) {
      v4.add(new ArrayList<>());
      v6.add(new ArrayList<>());
      y.append("  ").append(LISTS[l]).append(":\n");
      for (int i = 0; i < shares[l]; i++) {
        String cidr;
        if (i % 10 == 9) {
          cidr = String.format("2001:db8:%x:%x::/64", l, i);
          v6.get(l).add(cidr);
        } else {
          int length = 16 + r.nextInt(13); // /16 to /28
          int address = ((l + 1) << 24 | r.nextInt(1 << 24)) & (int) (0xffffffffL << (32 - length));
          cidr = ((address >>> 24) & 0xff) + "." + ((address >>> 16) & 0xff) + "." + ((address >>> 8) & 0xff) + "." + (address & 0xff) + "/" + length;
          v4.get(l).add(cidr);
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

  /** An address inside a random prefix of {@code prefixes}, or anywhere when that is null. */
  private static InetAddress address(Random r, List<String> prefixes, boolean ipv6) throws UnknownHostException {
    byte[] a = new byte[ipv6 ? 16 : 4];
    r.nextBytes(a);
    if (prefixes != null) {
      Cidr c = Cidr.parse(prefixes.get(r.nextInt(prefixes.size())));
      byte[] n = c.network().getAddress();
      for (int bit = 0; bit < c.prefixLength(); bit++) {
        int mask = 0x80 >>> (bit % 8);
        a[bit / 8] = (byte) ((a[bit / 8] & ~mask) | (n[bit / 8] & mask));
      }
    }
    return InetAddress.getByAddress(a);
  }

  /**
   * Runs the JMH benchmark with the annotations' settings ({@code org.openjdk.jmh.Main
   * ClassifierBenchmark} takes the usual JMH options instead). With {@code --cpu-time} it instead
   * classifies 20 million flows and reports flows per second of this thread's CPU time and the
   * decision mix: a figure that stays meaningful on a loaded shared machine, where JMH's wall-clock
   * throughput is diluted by other processes.
   */
  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("--cpu-time")) {
      cpuTime();
      return;
    }
    new Runner(new OptionsBuilder().include(ClassifierBenchmark.class.getSimpleName()).build()).run();
  }

  private static void cpuTime() throws UnknownHostException {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    for (int ipv6 : new int[] {0, 20}) {
      ClassifierBenchmark b = new ClassifierBenchmark();
      b.ipv6Percent = ipv6;
      b.setUp();
      Map<String, Integer> mix = new TreeMap<>();
      for (FlowKey k : b.flows) {
        Verdict d = b.policy.classify(k);
        mix.merge(d.isDefault() ? "default" : d.action().yamlName(), 1, Integer::sum);
      }
      long checksum = 0;
      for (int round = 0; round < 3; round++) { // the first rounds warm up the JIT
        int n = 20_000_000;
        long start = threads.getCurrentThreadCpuTime();
        for (int i = 0; i < n; i++) {
          checksum += b.classify().sequence();
        }
        double seconds = (threads.getCurrentThreadCpuTime() - start) / 1e9;
        LOG.info(
            "ipv6 {}%: round {}: {} flows in {} s of CPU time = {} flows/s per core (decision mix of the flow set: {}; checksum {})",
            ipv6, round, n, String.format("%.3f", seconds), String.format("%,.0f", n / seconds), mix, checksum);
      }
    }
  }

}
