package io.tcpopt.cli.operator;

import io.tcpopt.common.policy.PolicyDocument;

/**
 * Checks a policy file on the operator's machine before it is sent, so that a mistake is reported
 * with its field path even when the controller is far away (the controller validates again).
 */
final class LocalPolicy {
  private LocalPolicy() {}

  /** Throws a one-line {@link io.tcpopt.common.policy.PolicyException} when the text is not a valid policy. */
  static void check(String yaml, String sourceName) {
    PolicyDocument.parse(yaml, sourceName);
  }
}
