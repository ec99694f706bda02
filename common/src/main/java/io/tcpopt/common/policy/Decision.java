package io.tcpopt.common.policy;

import io.tcpopt.common.profile.LegProfiles;
import java.util.Objects;

/**
 * The classifier's answer for one flow. Instances are built when the policy is compiled and shared:
 * classifying allocates nothing.
 *
 * @param action what to do with the flow
 * @param sequence the matching sequence number, 0 when the default action applied
 * @param serviceNodeGroup the group that optimizes the flow; {@code null} unless {@link Action#OPTIMIZE}
 * @param profiles resolved TCP profiles per leg; {@code null} unless {@link Action#OPTIMIZE}
 * @param reason human text, e.g. {@code policy vpn10-appqoe seq 21: pass-through} or {@code default
 *     action: pass-through (no sequence matched)}
 * @param dataReduction compression and deduplication on the WAN leg; {@link DataReduction#OFF}
 *     unless {@link Action#OPTIMIZE} asks for some
 */
public record Decision(
    Action action, int sequence, String serviceNodeGroup, LegProfiles profiles, String reason,
    DataReduction dataReduction) {
  public Decision {
    Objects.requireNonNull(action, "action");
    Objects.requireNonNull(reason, "reason");
    if ((action == Action.OPTIMIZE) != (serviceNodeGroup != null && profiles != null)) {
      throw new IllegalArgumentException("group and profiles are required for optimize and only for optimize");
    }
    if (dataReduction == null || action != Action.OPTIMIZE) {
      dataReduction = DataReduction.OFF;
    }
  }

  /** A decision without data reduction. */
  public Decision(Action action, int sequence, String serviceNodeGroup, LegProfiles profiles, String reason) {
    this(action, sequence, serviceNodeGroup, profiles, reason, DataReduction.OFF);
  }

  public boolean isDefault() {
    return sequence == 0;
  }
}
