package io.tcpopt.common.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.common.policy.PolicyDocument;
import io.tcpopt.common.policy.PolicyException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile YAML (config files and policies alike) is refused with one line, at a cost bounded
 * whatever the input: the bytes allocated by the parsing thread are measured, not wall-clock time.
 */
class ConfigTreeLimitsTest {
  /** Far above what the limits let a document cost, far below what the attacks cost without them. */
  private static final long ALLOCATION_BOUND = 64L << 20;

  @TempDir Path dir;

  @Test
  void aBillionLaughsAliasBombIsRefused() {
    StringBuilder yaml = new StringBuilder("a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
    for (char c = 'b'; c <= 'i'; c++) {
      char prev = (char) (c - 1);
      yaml.append(c).append(": &").append(c).append(" [");
      for (int i = 0; i < 9; i++) {
        yaml.append(i == 0 ? "" : ",").append('*').append(prev);
      }
      yaml.append("]\n");
    }
    ConfigException e = refused(ConfigException.class, () -> ConfigTree.parse(yaml.toString(), "bomb.yaml"));
    assertEquals("bomb.yaml: invalid YAML: more than 10 aliases to lists or mappings (alias bombs are refused)", e.getMessage());
  }

  @Test
  void deepNestingIsRefused() {
    String yaml = "a: " + "[".repeat(100_000) + "]".repeat(100_000) + "\n";
    ConfigException e = refused(ConfigException.class, () -> ConfigTree.parse(yaml, "deep.yaml"));
    assertEquals("deep.yaml: invalid YAML: nested more than 32 levels deep", e.getMessage());
  }

  @Test
  void fourMebibytesOfPrefixesAreRefusedAsAPolicyAndAsAFile() throws Exception {
    String yaml = prefixes(4 << 20);
    PolicyException policy = refused(PolicyException.class, () -> PolicyDocument.parse(yaml, "request"));
    assertTrue(policy.getMessage().contains("request: too large (") && policy.getMessage().contains("at most 1 MiB"), policy.getMessage());
    Path file = Files.writeString(dir.resolve("big.yaml"), yaml.repeat(2));
    ConfigException fromFile = refused(ConfigException.class, () -> ConfigTree.load(file));
    assertTrue(fromFile.getMessage().contains("big.yaml: too large (") && fromFile.getMessage().contains(" bytes)"), fromFile.getMessage());
  }

  @Test
  void tenThousandPrefixesStillFit() {
    StringBuilder yaml = new StringBuilder("prefix-lists:\n  BIG:\n");
    for (int i = 0; i < 10_000; i++) {
      yaml.append("    - 10.0.").append(i >> 8).append('.').append(i & 255).append("/32\n");
    }
    yaml.append("data-policy: { sequences: [ { seq: 1, match: { destination-prefix-list: BIG }, action: drop } ] }\n");
    assertEquals(10_000, PolicyDocument.parse(yaml.toString(), "big").prefixLists().get("BIG").size());
  }

  /** A prefix list of about {@code size} characters. */
  static String prefixes(int size) {
    StringBuilder yaml = new StringBuilder("prefix-lists:\n  BIG:\n");
    for (int i = 0; yaml.length() < size; i++) {
      yaml.append("    - 10.").append((i >> 16) & 255).append('.').append((i >> 8) & 255).append('.').append(i & 255).append("/32\n");
    }
    return yaml.toString();
  }

  /** Runs {@code parse}, expecting {@code type}, and bounds what the parsing thread allocated. */
  private static <T extends Throwable> T refused(Class<T> type, Executable parse) {
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long before = threads.getCurrentThreadAllocatedBytes();
    T e = assertThrows(type, parse);
    long allocated = threads.getCurrentThreadAllocatedBytes() - before;
    assertTrue(allocated < ALLOCATION_BOUND, "refusing it allocated " + (allocated >> 20) + " MiB: " + e.getMessage());
    return e;
  }
}
