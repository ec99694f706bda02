package io.tcpopt.servicenode.flow;

/** How the node handled a flow. */
public enum FlowKind {
  /** Carried over an inter-node session (at either end). */
  OPTIMIZED,
  /** Spliced directly to the server; the record says why. */
  PASS_THROUGH,
  /** Refused with a reset by policy. */
  DROPPED,
  /** Refused with a reset at a node limit (max-active, per-client); the record says which. */
  REFUSED
}
