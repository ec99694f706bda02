package io.tcpopt.common.policy;

import io.tcpopt.common.profile.LegProfiles;
import java.util.Objects;

/**
 * What to do with one flow and why: tcpopt's one verdict type. The classifier ({@link
 * CompiledPolicy}) builds one per sequence when a policy is compiled (shared, so classifying
 * allocates nothing); the controller's dispatcher settles where the flow goes ({@link #settled});
 * the service node's decider hands one to its flow router.
 *
 * @param action what to do with the flow
 * @param reason human text, e.g. {@code policy vpn10-appqoe seq 21: pass-through} or {@code default
 *     action: pass-through (no sequence matched)}
 * @param sequence the matching sequence number, 0 for the default action or without a policy
 * @param serviceNodeGroup the group a policy chose to optimize the flow; null otherwise
 * @param serviceNode the group member chosen to carry it (controller placement); null otherwise
 * @param profiles TCP profile per leg, null for the node's {@code lan} defaults; the intercepting
 *     node applies the client profile, the far node (deciding the same flow) the server profile
 * @param policyVersion version of the policy that decided, 0 without one
 * @param dataReduction compression and deduplication on the WAN leg; {@link DataReduction#OFF}
 *     unless an optimize action asks for some (never null)
 */
public record Verdict(Action action, String reason, int sequence, String serviceNodeGroup, String serviceNode, LegProfiles profiles,
    long policyVersion, DataReduction dataReduction) {
  public Verdict {
    Objects.requireNonNull(action, "action");
    reason = reason == null ? "" : reason;
    dataReduction = dataReduction == null || action != Action.OPTIMIZE ? DataReduction.OFF : dataReduction;
  }

  /** A verdict without data reduction. */
  public Verdict(Action action, String reason, int sequence, String serviceNodeGroup, String serviceNode, LegProfiles profiles,
      long policyVersion) {
    this(action, reason, sequence, serviceNodeGroup, serviceNode, profiles, policyVersion, DataReduction.OFF);
  }

  /** Optimize, without placement or policy version. */
  public static Verdict optimize(String reason, String serviceNodeGroup, LegProfiles profiles) {
    return new Verdict(Action.OPTIMIZE, reason, 0, serviceNodeGroup, null, profiles, 0);
  }

  public static Verdict passThrough(String reason) {
    return new Verdict(Action.PASS_THROUGH, reason, 0, null, null, null, 0);
  }

  public static Verdict drop(String reason) {
    return new Verdict(Action.DROP, reason, 0, null, null, null, 0);
  }

  /**
   * This policy verdict as a dispatcher settled it: the action taken (an optimize that could not be
   * placed passes through), why, the member placed on (or null), the policy version.
   */
  public Verdict settled(Action action, String reason, String serviceNode, long policyVersion) {
    return new Verdict(action, reason, sequence, serviceNodeGroup, serviceNode, profiles, policyVersion, dataReduction);
  }

  /** True when the policy's default action decided (no sequence matched). */
  public boolean isDefault() {
    return sequence == 0;
  }
}
