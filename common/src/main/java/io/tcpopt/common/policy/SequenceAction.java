package io.tcpopt.common.policy;

import java.util.Objects;

/**
 * The action of one sequence. For {@link Action#OPTIMIZE} the group and the three profile names
 * are set (profile names default to {@code tcp-lan-optimized}, {@code tcp-wan-optimized}, {@code
 * tcp-lan-optimized}) and {@code services} names the optional application profiles; for the other
 * actions all five are {@code null}.
 */
public record SequenceAction(
    Action action, String serviceNodeGroup, String clientProfile, String wanProfile, String serverProfile, ServiceProfileRefs services) {
  public static final SequenceAction PASS_THROUGH = new SequenceAction(Action.PASS_THROUGH, null, null, null, null, null);
  public static final SequenceAction DROP = new SequenceAction(Action.DROP, null, null, null, null, null);

  public SequenceAction {
    Objects.requireNonNull(action, "action");
    boolean optimize = action == Action.OPTIMIZE;
    boolean complete =
        serviceNodeGroup != null && clientProfile != null && wanProfile != null && serverProfile != null && services != null;
    boolean none =
        serviceNodeGroup == null && clientProfile == null && wanProfile == null && serverProfile == null && services == null;
    if (optimize ? !complete : !none) {
      throw new IllegalArgumentException("group and profiles are required for optimize and only for optimize");
    }
  }

  public static SequenceAction optimize(String group, String client, String wan, String server) {
    return optimize(group, client, wan, server, ServiceProfileRefs.NONE);
  }

  public static SequenceAction optimize(String group, String client, String wan, String server, ServiceProfileRefs services) {
    return new SequenceAction(Action.OPTIMIZE, group, client, wan, server, services);
  }
}
