package io.tcpopt.servicenode.flow;

import java.util.List;

/** Active flows (oldest first) and the closed-flow history (oldest first), immutable. */
public record FlowTableSnapshot(List<FlowRecord> active, List<FlowRecord> closed) {
  public FlowTableSnapshot {
    active = List.copyOf(active);
    closed = List.copyOf(closed);
  }
}
