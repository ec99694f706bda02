package io.tcpopt.cli.operator;

import io.tcpopt.common.config.ConfigTree;

/**
 * Checks a policy file on the operator's machine before it is sent, so that a typo is reported
 * with its field path without a round trip, and normalizes policies for {@code policy diff}.
 */
final class LocalPolicy {
  private LocalPolicy() {}

  /** Throws a one-line {@link io.tcpopt.common.config.ConfigException} when the text is not a valid policy. */
  static void check(String yaml, String sourceName) {
    ConfigTree.parse(yaml, sourceName);
  }

  /** The policy in canonical form (so that formatting-only changes do not show in a diff). */
  static String normalize(String yaml, String sourceName) {
    check(yaml, sourceName);
    return yaml.strip();
  }
}
