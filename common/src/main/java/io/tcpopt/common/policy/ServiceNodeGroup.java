package io.tcpopt.common.policy;

import java.util.Objects;

/** A named group of service nodes at one site; an optimize action hands flows to one of its nodes. */
public record ServiceNodeGroup(String name, String site) {
  public ServiceNodeGroup {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(site, "site");
  }
}
