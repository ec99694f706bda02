package io.tcpopt.common.policy;

/** What happens to a flow a sequence (or the default action) selects. */
public enum Action {
  /** Split the flow into three legs and carry the middle one over the inter-node session. */
  OPTIMIZE("optimize"),
  /** Leave the flow alone: forward it directly, unoptimized. */
  PASS_THROUGH("pass-through"),
  /** Refuse the flow (reset the client connection). */
  DROP("drop");

  private final String yamlName;

  Action(String yamlName) {
    this.yamlName = yamlName;
  }

  /** The word used in policy YAML and in reasons: optimize, pass-through, drop. */
  public String yamlName() {
    return yamlName;
  }
}
