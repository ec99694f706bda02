package io.tcpopt.common.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Compares the compiled classifier with the reference semantics ({@link Match#matches}, scanning
 * sequences in order) on random policies and random flows, IPv4 and IPv6. Flows are drawn mostly
 * from inside the policy's prefixes and port ranges so that every kind of decision occurs.
 */
class CompiledPolicyRandomizedTest {
  private static final int POLICIES = 200;
  private static final int FLOWS_PER_POLICY = 500;

  @Test
  void agreesWithTheReferenceMatcherOnRandomPoliciesAndFlows() throws Exception {
    long seed = Long.getLong("tcpopt.test.seed", System.nanoTime());
    Random random = new Random(seed);
    int flows = 0;
    int[] byAction = new int[Action.values().length];
    int defaults = 0;
    for (int p = 0; p < POLICIES; p++) {
      Generated g = generate(random);
      PolicyDocument document = PolicyDocument.parse(g.yaml, "random policy " + p + " (seed " + seed + ")");
      if (p % 10 == 0) { // YAML is slow: check the canonical round trip on a sample only
        assertEquals(document, PolicyDocument.parse(document.toYaml(), "canonical"), "seed " + seed);
      }
      CompiledPolicy compiled = CompiledPolicy.compile(document);
      for (int f = 0; f < FLOWS_PER_POLICY; f++) {
        FlowKey k = flow(random, g);
        Verdict got = compiled.classify(k);
        int expected = reference(document, k);
        int policyNumber = p;
        assertEquals(expected, got.sequence(), () -> "seed " + seed + ", policy " + policyNumber + ", flow " + k + "\n" + g.yaml);
        if (expected == 0) {
          assertEquals(document.defaultAction(), got.action());
          defaults++;
        } else {
          Sequence s = document.sequences().stream().filter(x -> x.seq() == expected).findFirst().orElseThrow();
          assertEquals(s.action().action(), got.action());
          assertEquals(s.action().serviceNodeGroup(), got.serviceNodeGroup());
          assertSame(got, compiled.classify(k));
        }
        byAction[got.action().ordinal()]++;
        flows++;
      }
    }
    assertEquals(POLICIES * FLOWS_PER_POLICY, flows);
    // The generator must exercise every outcome substantially, or the comparison proves little.
    for (Action a : Action.values()) {
      int count = byAction[a.ordinal()];
      assertTrue(count > flows / 50, "only " + count + " flows got " + a + ", seed " + seed);
    }
    assertTrue(defaults > flows / 50 && defaults < flows / 2, "default share off: " + defaults + ", seed " + seed);
  }

  /** First matching sequence number by the simplest possible reading of the policy, 0 for none. */
  private static int reference(PolicyDocument d, FlowKey k) {
    for (Sequence s : d.sequences()) {
      if (s.match().matches(k, d.prefixLists())) {
        return s.seq();
      }
    }
    return 0;
  }

  private static final class Generated {
    final List<byte[]> networks = new ArrayList<>();
    final List<Integer> lengths = new ArrayList<>();
    String yaml;
  }

  private static Generated generate(Random r) throws UnknownHostException {
    Generated g = new Generated();
    StringBuilder y = new StringBuilder("prefix-lists:\n");
    int lists = 1 + r.nextInt(6);
    for (int l = 0; l < lists; l++) {
      y.append("  L").append(l).append(":\n");
      int count = 1 + r.nextInt(r.nextInt(5) == 0 ? 120 : 30);
      for (int i = 0; i < count; i++) {
        boolean v4 = r.nextInt(3) > 0;
        byte[] a = v4 ? new byte[] {10, 0, 0, 0} : InetAddress.getByName("2001:db8::").getAddress();
        int fixed = v4 ? 8 : 32;
        int bits = a.length * 8;
        int length = count <= 30 && r.nextInt(40) == 0 ? 0 : fixed + r.nextInt(bits - fixed + 1);
        // Mostly short random suffixes so that prefixes nest and overlap between lists.
        for (int bit = fixed; bit < length; bit++) {
          if (r.nextInt(bit < fixed + 12 ? 2 : 8) == 0) {
            a[bit / 8] |= (byte) (0x80 >>> (bit % 8));
          }
        }
        for (int bit = length; bit < bits; bit++) {
          a[bit / 8] &= (byte) ~(0x80 >>> (bit % 8));
        }
        g.networks.add(a);
        g.lengths.add(length);
        y.append("    - \"").append(Cidr.format(a)).append('/').append(length).append("\"\n");
      }
    }
    y.append("service-node-groups:\n  G1: { site: branch }\n  G2: { site: dc }\n");
    y.append("data-policy:\n  name: random\n  sequences:\n");
    int sequences = 1 + r.nextInt(r.nextInt(4) == 0 ? 100 : 20);
    List<Integer> numbers = new ArrayList<>();
    for (int i = 0; i < sequences; i++) {
      numbers.add(1 + i * 10 + r.nextInt(10));
    }
    java.util.Collections.shuffle(numbers, r); // document order need not be match order
    for (int seq : numbers) {
      y.append("    - seq: ").append(seq).append("\n      match: {");
      List<String> conditions = new ArrayList<>();
      if (r.nextInt(4) == 0) {
        conditions.add(r.nextBoolean() ? "vpn: " + r.nextInt(4) : "vpn: [" + r.nextInt(4) + ", " + r.nextInt(4) + "]");
      }
      if (r.nextInt(3) > 0) {
        conditions.add("source-prefix-list: L" + r.nextInt(lists));
      }
      if (r.nextInt(3) > 0) {
        conditions.add("destination-prefix-list: L" + r.nextInt(lists));
      }
      if (r.nextInt(4) == 0) {
        conditions.add("source-port: " + ports(r));
      }
      if (r.nextInt(3) == 0) {
        conditions.add("destination-port: " + ports(r));
      }
      if (r.nextInt(5) == 0) {
        conditions.add("protocol: tcp");
      }
      y.append(String.join(", ", conditions)).append("}\n      action: ");
      switch (r.nextInt(3)) {
        case 0:
          y.append("{ optimize: { service-node-group: G").append(1 + r.nextInt(2)).append(" } }\n");
          break;
        case 1:
          y.append("pass-through\n");
          break;
        default:
          y.append(r.nextBoolean() ? "drop\n" : "{ drop: {} }\n");
      }
    }
    y.append("  default-action: ").append(r.nextBoolean() ? "pass-through" : "drop").append('\n');
    g.yaml = y.toString();
    return g;
  }

  private static String ports(Random r) {
    int n = 1 + r.nextInt(3);
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int low = r.nextInt(100);
      out.add(r.nextBoolean() ? Integer.toString(low) : low + "-" + (low + r.nextInt(40)));
    }
    return n == 1 ? "\"" + out.get(0) + "\"" : "[" + String.join(", ", out) + "]";
  }

  private static FlowKey flow(Random r, Generated g) throws UnknownHostException {
    return new FlowKey(r.nextInt(5), address(r, g), port(r), address(r, g), port(r));
  }

  private static int port(Random r) {
    return r.nextInt(10) == 0 ? r.nextInt(65536) : r.nextInt(140);
  }

  private static InetAddress address(Random r, Generated g) throws UnknownHostException {
    int choice = r.nextInt(10);
    if (choice < 7) {
      // Inside (or at an edge of) one of the policy's prefixes.
      int i = r.nextInt(g.networks.size());
      byte[] a = g.networks.get(i).clone();
      int bits = a.length * 8;
      int length = g.lengths.get(i);
      int edge = r.nextInt(4);
      for (int bit = length; bit < bits; bit++) {
        boolean one = edge == 0 ? false : edge == 1 || r.nextBoolean();
        if (one) {
          a[bit / 8] |= (byte) (0x80 >>> (bit % 8));
        }
      }
      if (choice == 6) {
        // Just past the prefix: flip one bit at or above the prefix length.
        int bit = Math.max(0, length - 1 - r.nextInt(Math.max(1, Math.min(length, 4))));
        a[bit / 8] ^= (byte) (0x80 >>> (bit % 8));
      }
      return InetAddress.getByAddress(a);
    }
    byte[] a = new byte[choice < 9 ? 4 : 16];
    r.nextBytes(a);
    if (choice == 7) {
      a[0] = 10;
    }
    return InetAddress.getByAddress(a);
  }
}
