package io.tcpopt.servicenode;

import java.util.Objects;

/**
 * What to do with one flow and why.
 *
 * @param serviceNodeGroup the group chosen by policy for OPTIMIZE, else null
 */
public record Verdict(Kind kind, String reason, String serviceNodeGroup) {
  public enum Kind {
    OPTIMIZE,
    PASS_THROUGH,
    DROP
  }

  public Verdict {
    Objects.requireNonNull(kind, "kind");
    reason = reason == null ? "" : reason;
  }
}
