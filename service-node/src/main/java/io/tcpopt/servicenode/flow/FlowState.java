package io.tcpopt.servicenode.flow;

/** Life cycle of a flow. */
public enum FlowState {
  CONNECTING,
  OPEN,
  CLOSED
}
