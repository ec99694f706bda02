package io.tcpopt.servicenode;

import io.tcpopt.common.policy.DataReduction;
import io.tcpopt.common.profile.LegProfiles;
import java.util.Objects;

/**
 * What to do with one flow and why.
 *
 * @param serviceNodeGroup the group chosen by policy for OPTIMIZE, else null
 * @param profiles the TCP profile of each leg for OPTIMIZE, or null for the node's {@code lan}
 *     defaults; the intercepting node applies the client profile to the client leg, the far node
 *     (deciding the same flow with its own decider) the server profile to the server leg
 * @param dataReduction compression and deduplication on the WAN leg ({@link DataReduction#OFF}
 *     unless an OPTIMIZE verdict's policy asks for some)
 */
public record Verdict(Kind kind, String reason, String serviceNodeGroup, LegProfiles profiles, DataReduction dataReduction) {
  public enum Kind {
    OPTIMIZE,
    PASS_THROUGH,
    DROP
  }

  public Verdict {
    Objects.requireNonNull(kind, "kind");
    reason = reason == null ? "" : reason;
    dataReduction = dataReduction == null || kind != Kind.OPTIMIZE ? DataReduction.OFF : dataReduction;
  }

  /** A verdict without data reduction. */
  public Verdict(Kind kind, String reason, String serviceNodeGroup, LegProfiles profiles) {
    this(kind, reason, serviceNodeGroup, profiles, DataReduction.OFF);
  }

  /** A verdict without leg profiles: the node's {@code lan} defaults apply. */
  public Verdict(Kind kind, String reason, String serviceNodeGroup) {
    this(kind, reason, serviceNodeGroup, null);
  }
}
