package io.tcpopt.controller.membership;

/** What a registered node does. */
public enum NodeRole {
  CONTROLLER("controller"),
  SERVICE_NODE("service-node"),
  INTEGRATED("integrated");

  private final String label;

  NodeRole(String label) {
    this.label = label;
  }

  /** The lower-case name used in config files and CLI output. */
  public String label() {
    return label;
  }

  /** Whether flows can be handed to it. */
  public boolean servesFlows() {
    return this != CONTROLLER;
  }
}
