package io.tcpopt.common.policy;

import java.util.Objects;

/**
 * The action of one sequence. For {@link Action#OPTIMIZE} the group and the three profile names
 * are set (profile names default to {@code tcp-lan-optimized}, {@code tcp-wan-optimized}, {@code
 * tcp-lan-optimized}), the data reduction (default {@link DataReduction#OFF}) and {@code services},
 * the optional application profiles (default {@link ServiceProfileRefs#NONE}); for the other
 * actions all six are {@code null}.
 */
public record SequenceAction(
    Action action, String serviceNodeGroup, String clientProfile, String wanProfile, String serverProfile,
    DataReduction dataReduction, ServiceProfileRefs services) {
  public static final SequenceAction PASS_THROUGH = new SequenceAction(Action.PASS_THROUGH, null, null, null, null);
  public static final SequenceAction DROP = new SequenceAction(Action.DROP, null, null, null, null);

  public SequenceAction {
    Objects.requireNonNull(action, "action");
    boolean optimize = action == Action.OPTIMIZE;
    if (optimize && dataReduction == null) {
      dataReduction = DataReduction.OFF;
    }
    if (optimize && services == null) {
      services = ServiceProfileRefs.NONE;
    }
    boolean complete = serviceNodeGroup != null && clientProfile != null && wanProfile != null && serverProfile != null;
    boolean none = serviceNodeGroup == null && clientProfile == null && wanProfile == null && serverProfile == null
        && dataReduction == null && services == null;
    if (optimize ? !complete : !none) {
      throw new IllegalArgumentException("group and profiles are required for optimize and only for optimize");
    }
  }

  /** An action without data reduction and application profiles (their defaults for optimize). */
  public SequenceAction(
      Action action, String serviceNodeGroup, String clientProfile, String wanProfile, String serverProfile) {
    this(action, serviceNodeGroup, clientProfile, wanProfile, serverProfile, null, null);
  }

  /** An action with a data reduction and without application profiles. */
  public SequenceAction(
      Action action, String serviceNodeGroup, String clientProfile, String wanProfile, String serverProfile, DataReduction dataReduction) {
    this(action, serviceNodeGroup, clientProfile, wanProfile, serverProfile, dataReduction, null);
  }

  /** This optimize action with {@code reduction} instead of its data reduction. */
  public SequenceAction withDataReduction(DataReduction reduction) {
    if (action != Action.OPTIMIZE) {
      throw new IllegalStateException("only optimize actions have data reduction");
    }
    return new SequenceAction(action, serviceNodeGroup, clientProfile, wanProfile, serverProfile, reduction, services);
  }

  public static SequenceAction optimize(String group, String client, String wan, String server) {
    return new SequenceAction(Action.OPTIMIZE, group, client, wan, server);
  }

  public static SequenceAction optimize(String group, String client, String wan, String server, ServiceProfileRefs services) {
    return new SequenceAction(Action.OPTIMIZE, group, client, wan, server, null, services);
  }
}
