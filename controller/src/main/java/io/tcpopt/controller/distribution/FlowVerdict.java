package io.tcpopt.controller.distribution;

import io.tcpopt.common.policy.DataReduction;
import io.tcpopt.common.profile.LegProfiles;

/**
 * What to do with one new flow.
 *
 * @param kind optimize, pass through or drop
 * @param reason why (policy sequence, default action, or why an optimizable flow was not optimized)
 * @param serviceNodeGroup the group chosen by the policy; null without a policy or unless optimizing
 * @param serviceNode the member chosen to carry it; null unless {@code OPTIMIZE} with a policy
 * @param profiles TCP profile per leg from the policy; null when the policy names none
 * @param sequence matching policy sequence, 0 for the default action or without a policy
 * @param policyVersion version of the policy that decided, 0 without one
 * @param dataReduction compression and deduplication the policy asks for; {@link DataReduction#OFF}
 *     unless optimizing
 */
public record FlowVerdict(
    Kind kind, String reason, String serviceNodeGroup, String serviceNode, LegProfiles profiles, int sequence,
    long policyVersion, DataReduction dataReduction) {

  public FlowVerdict {
    dataReduction = dataReduction == null || kind != Kind.OPTIMIZE ? DataReduction.OFF : dataReduction;
  }

  /** A verdict without data reduction. */
  public FlowVerdict(
      Kind kind, String reason, String serviceNodeGroup, String serviceNode, LegProfiles profiles, int sequence,
      long policyVersion) {
    this(kind, reason, serviceNodeGroup, serviceNode, profiles, sequence, policyVersion, DataReduction.OFF);
  }

  /** The three outcomes, as in the service node's verdict. */
  public enum Kind {
    OPTIMIZE,
    PASS_THROUGH,
    DROP
  }
}
