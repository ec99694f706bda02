package io.tcpopt.controller.distribution;

/**
 * Where a flow goes: {@code node} is null when it must pass through, and then {@code reason} says
 * why.
 */
public record Placement(String node, String reason) {
  public boolean passThrough() {
    return node == null;
  }
}
