package io.tcpopt.common.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.tcpopt.common.policy.DataReduction.Compression;
import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code optimize.data-reduction}: parsing, defaults, errors with their field paths, the verdict. */
class DataReductionPolicyTest {
  private static String policy(String optimizeExtra) {
    return """
        prefix-lists:
          BR10: [198.18.1.0/24]
          DC100: [198.19.1.0/24]
        service-node-groups:
          SNG: { site: dc }
        data-policy:
          sequences:
            - seq: 1
              match: { source-prefix-list: BR10, destination-prefix-list: DC100 }
              action: { optimize: { service-node-group: SNG%s } }
            - seq: 2
              match: { destination-prefix-list: BR10 }
              action: { optimize: { service-node-group: SNG } }
          default-action: pass-through
        """.formatted(optimizeExtra);
  }

  private static List<String> errors(String extra) {
    PolicyException e = assertThrows(PolicyException.class, () -> PolicyDocument.parse(policy(extra), "p"));
    return e.errors().stream().map(FieldError::toString).toList();
  }

  @Test
  void parsesCompressionAndDeduplication() {
    PolicyDocument d = PolicyDocument.parse(policy(", data-reduction: { compression: zstd, deduplication: on }"), "p");
    assertEquals(new DataReduction(Compression.ZSTD, true), d.sequences().get(0).action().dataReduction());
    assertEquals(DataReduction.OFF, d.sequences().get(1).action().dataReduction());

    d = PolicyDocument.parse(policy(", data-reduction: { compression: lz4 }"), "p");
    assertEquals(new DataReduction(Compression.LZ4, false), d.sequences().get(0).action().dataReduction());
    d = PolicyDocument.parse(policy(", data-reduction: { deduplication: \"on\" }"), "p");
    assertEquals(new DataReduction(Compression.NONE, true), d.sequences().get(0).action().dataReduction());
    d = PolicyDocument.parse(policy(", data-reduction: { compression: none, deduplication: off }"), "p");
    assertEquals(DataReduction.OFF, d.sequences().get(0).action().dataReduction());
    d = PolicyDocument.parse(policy(", data-reduction: {}"), "p");
    assertEquals(DataReduction.OFF, d.sequences().get(0).action().dataReduction());
  }

  @Test
  void theVerdictCarriesIt() {
    PolicyDocument d = PolicyDocument.parse(policy(", data-reduction: { compression: lz4, deduplication: true }"), "p");
    CompiledPolicy c = CompiledPolicy.compile(d);
    Verdict optimized = c.classify(key("198.18.1.2", "198.19.1.2"));
    assertEquals(Action.OPTIMIZE, optimized.action());
    assertEquals(new DataReduction(Compression.LZ4, true), optimized.dataReduction());
    Verdict other = c.classify(key("198.19.1.2", "198.18.1.2"));
    assertEquals(2, other.sequence());
    assertEquals(DataReduction.OFF, other.dataReduction());
    Verdict passed = c.classify(key("10.0.0.1", "10.0.0.2"));
    assertEquals(Action.PASS_THROUGH, passed.action());
    assertEquals(DataReduction.OFF, passed.dataReduction());
    // the dispatcher's settled verdict keeps it, unless the flow is not optimized after all
    assertEquals(optimized.dataReduction(), optimized.settled(Action.OPTIMIZE, "placed", "sn-1", 3).dataReduction());
    assertEquals(DataReduction.OFF, optimized.settled(Action.PASS_THROUGH, "group full", null, 3).dataReduction());
  }

  @Test
  void canonicalYamlKeepsIt() {
    PolicyDocument d = PolicyDocument.parse(policy(", data-reduction: { compression: zstd, deduplication: on }"), "p");
    PolicyDocument again = PolicyDocument.parse(d.toYaml(), "canonical");
    assertEquals(d, again);
    assertEquals(new DataReduction(Compression.ZSTD, true), again.sequences().get(0).action().dataReduction());
    assertEquals(d.toYaml(), again.toYaml());
  }

  @Test
  void badValuesNameTheirField() {
    String at = "data-policy.sequences[0].action.optimize.data-reduction";
    assertEquals(List.of(at + ".compression: unknown compression \"gzip\" (expected none, lz4 or zstd)"),
        errors(", data-reduction: { compression: gzip }"));
    assertEquals(List.of(at + ".deduplication: expected on or off, got \"maybe\""),
        errors(", data-reduction: { deduplication: maybe }"));
    assertEquals(List.of(at + ": expected a mapping with compression (none, lz4, zstd) and deduplication (on, off)"),
        errors(", data-reduction: zstd"));
    List<String> typo = errors(", data-reduction: { compresion: zstd }");
    assertEquals(1, typo.size());
    assertEquals(true, typo.get(0).startsWith(at + ".compresion: "), typo.get(0));
    // Both problems in one round.
    assertEquals(2, errors(", data-reduction: { compression: brotli, deduplication: 3 }").size());
  }

  @Test
  void onlyOptimizeHasIt() {
    assertEquals(null, SequenceAction.PASS_THROUGH.dataReduction());
    assertThrows(IllegalStateException.class, () -> SequenceAction.DROP.withDataReduction(DataReduction.OFF));
    assertThrows(IllegalArgumentException.class,
        () -> new SequenceAction(Action.DROP, null, null, null, null, DataReduction.OFF));
  }

  private static FlowKey key(String source, String destination) {
    try {
      return new FlowKey(0, InetAddress.getByName(source), 40000, InetAddress.getByName(destination), 80);
    } catch (java.net.UnknownHostException e) {
      throw new AssertionError(e);
    }
  }
}
