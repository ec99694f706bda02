package io.tcpopt.common.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.common.config.ConfigTree;
import java.util.List;
import org.junit.jupiter.api.Test;

class PolicyDocumentTest {
  static final String SAMPLE =
      """
      prefix-lists:
        BR10: [198.18.1.0/24]
        DC100: [198.19.1.0/24, "2001:db8:100::/48"]
      service-node-groups:
        SNG-APPQOE: { site: branch }
      tcp-profiles:
        bulk: { parent: tcp-wan-optimized, send-buffer: 32MiB, keepalive: off }
      data-policy:
        name: vpn10-appqoe
        sequences:
          - seq: 11
            match: { source-prefix-list: DC100, destination-prefix-list: BR10 }
            action: { optimize: { service-node-group: SNG-APPQOE } }
          - seq: 1
            match: { vpn: 10, source-prefix-list: BR10, destination-prefix-list: DC100, destination-port: [80, 443, 8000-8999] }
            action: { optimize: { service-node-group: SNG-APPQOE, profiles: { wan: bulk } } }
          - seq: 21
            match: { destination-port: 22, protocol: tcp }
            action: pass-through
          - seq: 30
            match: { vpn: [20, 30], source-port: "1000-2000" }
            action: { drop: {} }
        default-action: drop
      """;

  @Test
  void parsesTheSampleIntoSortedSequences() {
    PolicyDocument d = PolicyDocument.parse(SAMPLE, "sample");
    assertEquals("vpn10-appqoe", d.name());
    assertEquals(List.of(1, 11, 21, 30), d.sequences().stream().map(Sequence::seq).toList());
    assertEquals(Action.DROP, d.defaultAction());
    assertEquals("2001:db8:100::/48", d.prefixLists().get("DC100").get(1).toString());
    Sequence first = d.sequences().get(0);
    assertEquals(List.of(10), first.match().vpns());
    assertEquals(List.of(new PortRange(80, 80), new PortRange(443, 443), new PortRange(8000, 8999)), first.match().destinationPorts());
    assertEquals(SequenceAction.optimize("SNG-APPQOE", "tcp-lan-optimized", "bulk", "tcp-lan-optimized"), first.action());
    assertEquals(32L << 20, d.legProfiles(first.action()).wan().sendBuffer());
    assertEquals("bbr", d.legProfiles(first.action()).wan().congestionControl());
    assertTrue(!d.legProfiles(first.action()).wan().keepaliveEnabled());
    assertEquals(SequenceAction.DROP, d.sequences().get(3).action());
    assertEquals("branch", d.serviceNodeGroups().get("SNG-APPQOE").site());
  }

  @Test
  void canonicalYamlParsesBackToAnEqualDocument() {
    PolicyDocument d = PolicyDocument.parse(SAMPLE, "sample");
    String yaml = d.toYaml();
    PolicyDocument again = PolicyDocument.parse(yaml, "canonical");
    assertEquals(d, again);
    assertEquals(d.hashCode(), again.hashCode());
    assertEquals(yaml, again.toYaml());
  }

  @Test
  void designSampleIsValidAndDefaultsToPassThrough() {
    String design =
        """
        prefix-lists:
          BR10: [198.18.1.0/24]
          DC100: [198.19.1.0/24]
        service-node-groups:
          SNG-APPQOE: { site: branch }
        data-policy:
          name: vpn10-appqoe
          sequences:
            - seq: 1
              match: { source-prefix-list: BR10, destination-prefix-list: DC100 }
              action: { optimize: { service-node-group: SNG-APPQOE } }
          default-action: pass-through
        """;
    PolicyDocument d = PolicyDocument.parse(design, "design");
    assertEquals(Action.PASS_THROUGH, d.defaultAction());
    assertEquals(d, PolicyDocument.parse(d.toYaml(), "again"));
  }

  @Test
  void nestedSectionReportsFullPaths() {
    ConfigTree node = ConfigTree.parse("policy:\n  data-policy: { sequences: [] }\n", "node.yaml");
    PolicyException e = assertThrows(PolicyException.class, () -> PolicyDocument.fromTree(node.get("policy")));
    assertEquals(List.of(new FieldError("policy.data-policy", "no sequences")), e.errors());
  }

  @Test
  void collectsEveryErrorWithItsPath() {
    String bad =
        """
        prefix-lists:
          BR10: [198.18.1.0/33, 198.18.1.5/24, banana]
          DC100: [198.19.1.0/24]
          EMPTY: []
        service-node-groups:
          SNG: { site: branch, colour: red }
        tcp-profiles:
          a: { parent: b }
          b: { parent: a }
          orphan: { parent: nothing }
          tight: { proxy-buffer-high: 16KiB, proxy-buffer-low: 32KiB }
          tcp: { nagle: true }
        data-policy:
          sequences:
            - seq: 11
              match: { source-prefix-list: BR10 }
              action: pass-through
            - seq: 12
              match: { destination-prefix-list: DC200, destination-port: 90-80, vpn: abc }
              action: { optimize: { service-node-group: NOPE, profiles: { wan: missing } } }
            - seq: 11
              match: { protocol: udp, destination-port: 70000 }
              action: teleport
            - seq: 13
              action: { optimize: {} }
          default-action: optimize
        """;
    PolicyException e = assertThrows(PolicyException.class, () -> PolicyDocument.parse(bad, "bad"));
    List<String> got = e.errors().stream().map(FieldError::toString).toList();
    List<String> expected =
        List.of(
            "prefix-lists.BR10[0]: bad CIDR \"198.18.1.0/33\": prefix length must be between 0 and 32",
            "prefix-lists.BR10[1]: bad CIDR \"198.18.1.5/24\": host bits set, did you mean 198.18.1.0/24?",
            "prefix-lists.BR10[2]: bad CIDR \"banana\": not an IPv4 or IPv6 address",
            "prefix-lists.EMPTY: empty prefix list",
            "service-node-groups.SNG.colour: unknown setting (expected one of site)",
            "tcp-profiles.tcp: cannot redefine built-in profile \"tcp\"",
            "tcp-profiles.a.parent: inheritance cycle a -> b -> a",
            "tcp-profiles.b.parent: inheritance cycle b -> a -> b",
            "tcp-profiles.orphan.parent: unknown parent profile \"nothing\"",
            "tcp-profiles.tight.proxy-buffer-high: proxy-buffer-high 16KiB is below proxy-buffer-low 32KiB",
            "data-policy.sequences[1].match.vpn: bad vpn \"abc\" (expected a number 0-65535)",
            "data-policy.sequences[1].match.destination-prefix-list: unknown prefix list \"DC200\"",
            "data-policy.sequences[1].match.destination-port: bad port range \"90-80\" (expected N or N-M with 0 <= N <= M <= 65535)",
            "data-policy.sequences[1].action.optimize.service-node-group: unknown service-node group \"NOPE\"",
            "data-policy.sequences[1].action.optimize.profiles.wan: unknown TCP profile \"missing\"",
            "data-policy.sequences[2].seq: duplicate sequence number 11",
            "data-policy.sequences[2].match.destination-port: bad port \"70000\" (expected 0-65535)",
            "data-policy.sequences[2].match.protocol: unsupported protocol \"udp\" (tcpopt handles tcp only)",
            "data-policy.sequences[2].action: unknown action \"teleport\" (expected optimize, pass-through or drop)",
            "data-policy.sequences[3].action.optimize.service-node-group: is required",
            "data-policy.default-action: unknown default action \"optimize\" (expected pass-through or drop)");
    assertEquals(expected, got);
    assertEquals(expected.get(0) + " (and " + (expected.size() - 1) + " more)", e.getMessage());
  }

  @Test
  void emptyOrMissingPolicyIsRefused() {
    PolicyException e = assertThrows(PolicyException.class, () -> PolicyDocument.parse("", "empty"));
    assertEquals("data-policy: no sequences", e.getMessage());
  }

  @Test
  void yamlSyntaxErrorIsOneLine() {
    PolicyException e = assertThrows(PolicyException.class, () -> PolicyDocument.parse("a: [", "p.yaml"));
    assertTrue(e.getMessage().startsWith("p.yaml: invalid YAML"), e.getMessage());
    assertTrue(!e.getMessage().contains("\n"), e.getMessage());
  }

  @Test
  void misspeltKeysAreErrors() {
    String typo =
        """
        data-policy:
          sequences:
            - seq: 1
              match: { destination-prot: 80 }
              action: drop
        """;
    PolicyException e = assertThrows(PolicyException.class, () -> PolicyDocument.parse(typo, "typo"));
    assertTrue(e.getMessage().startsWith("data-policy.sequences[0].match.destination-prot: unknown setting"), e.getMessage());
  }

  @Test
  void bareAndEmptyMappingActionsAreEquivalent() {
    String a = "data-policy: { sequences: [ { seq: 5, action: pass-through } ] }";
    String b = "data-policy: { sequences: [ { seq: 5, action: { pass-through: {} } } ], default-action: pass-through }";
    PolicyDocument da = PolicyDocument.parse(a, "a");
    assertEquals(da, PolicyDocument.parse(b, "b"));
    assertEquals(Match.ANY, da.sequences().get(0).match());
    assertNull(da.sequences().get(0).action().serviceNodeGroup());
  }

  @Test
  void defaultActionMayAlsoStandAtTheTopLevelButNotTwice() {
    String top = "default-action: drop\ndata-policy: { sequences: [ { seq: 1, action: pass-through } ] }\n";
    assertEquals(Action.DROP, PolicyDocument.parse(top, "top").defaultAction());
    String twice = "default-action: drop\ndata-policy: { sequences: [ { seq: 1, action: pass-through } ], default-action: drop }\n";
    PolicyException e = assertThrows(PolicyException.class, () -> PolicyDocument.parse(twice, "twice"));
    assertEquals("default-action: given twice, also in data-policy.default-action; keep one", e.getMessage());
  }

  @Test
  void optimizeNeedsItsGroupAndActionsTakeOneKey() {
    String bad =
        """
        service-node-groups: { G: { site: dc } }
        data-policy:
          sequences:
            - { seq: 1, action: optimize }
            - { seq: 2, action: { drop: {}, pass-through: {} } }
            - { seq: 3, action: { drop: { hard: true } } }
            - { seq: 4, action: { optimize: { service-node-group: G, profiles: { lan: tcp } } } }
            - { seq: 5 }
        """;
    PolicyException e = assertThrows(PolicyException.class, () -> PolicyDocument.parse(bad, "bad"));
    assertEquals(
        List.of(
            "data-policy.sequences[0].action: optimize needs a service-node group: write optimize: { service-node-group: NAME }",
            "data-policy.sequences[1].action: expected exactly one of optimize, pass-through or drop, got drop, pass-through",
            "data-policy.sequences[2].action.drop: drop takes no settings (write drop: {} or just drop)",
            "data-policy.sequences[3].action.optimize.profiles.lan: unknown setting (expected one of client, wan, server)",
            "data-policy.sequences[4].action: is required (optimize, pass-through or drop)"),
        e.errors().stream().map(FieldError::toString).toList());
  }

  @Test
  void sitesNameTheirServedPrefixesByListOrPrefixAndRoundTrip() {
    PolicyDocument d = PolicyDocument.parse("prefix-lists: { DC100: [198.19.1.0/24, 2001:db8:100::/48] }\n"
        + "sites:\n"
        + "  dc: { serves: [DC100, 10.20.0.0/16, 198.19.1.0/24] }\n"
        + "  branch: { serves: [198.18.1.0/24] }\n"
        + "data-policy: { sequences: [ { seq: 1, action: pass-through } ] }\n", "test");
    assertEquals(List.of(Cidr.parse("198.19.1.0/24"), Cidr.parse("2001:db8:100::/48"), Cidr.parse("10.20.0.0/16")), d.servedBy("dc"));
    assertEquals(List.of(Cidr.parse("198.18.1.0/24")), d.servedBy("branch"));
    assertEquals(List.of(), d.servedBy("elsewhere"));
    assertEquals(d, PolicyDocument.parse(d.toYaml(), "again"));
  }

  @Test
  void aSiteServingAnUnknownListOrNothingIsRefusedByField() {
    PolicyException e = assertThrows(PolicyException.class, () -> PolicyDocument.parse("sites:\n"
        + "  dc: { serves: [NOPE] }\n"
        + "  br: { serves: [] }\n"
        + "  x: { serves: [10.0.0.0/8], prefixes: [1.2.3.0/24] }\n"
        + "data-policy: { sequences: [ { seq: 1, action: pass-through } ] }\n", "test"));
    List<String> errors = e.errors().stream().map(FieldError::toString).toList();
    assertTrue(errors.stream().anyMatch(s -> s.startsWith("sites.dc.serves[0]: neither a prefix list nor a prefix")), errors.toString());
    assertTrue(errors.stream().anyMatch(s -> s.startsWith("sites.br: serves nothing")), errors.toString());
    assertTrue(errors.stream().anyMatch(s -> s.startsWith("sites.x") && s.contains("prefixes")), errors.toString());
  }
}
