package io.tcpopt.cli.node;

import io.tcpopt.common.config.ConfigTree;

/** What a node does; a node with both roles is an integrated node. */
public enum Role {
  CONTROLLER("controller"),
  SERVICE_NODE("service-node");

  private final String configName;

  Role(String configName) {
    this.configName = configName;
  }

  public String configName() {
    return configName;
  }

  static Role parse(ConfigTree value) {
    String s = value.asString();
    for (Role r : values()) {
      if (r.configName.equals(s)) {
        return r;
      }
    }
    throw value.error("unknown role \"" + s + "\" (expected controller or service-node)");
  }
}
