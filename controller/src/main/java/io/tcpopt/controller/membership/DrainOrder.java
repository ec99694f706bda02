package io.tcpopt.controller.membership;

/**
 * What an operator asked of a node's drain ({@code tcpopt drain} / {@code undrain}), kept in its
 * {@link NodeRecord} until the node's next heartbeat carries it to the node, whichever controller
 * receives that heartbeat. The drain state itself lives in the node: a restart clears it.
 */
public enum DrainOrder {
  NONE,
  /** Stop taking new flows (they pass through), let the flows it holds finish. */
  DRAIN,
  /** Take new flows again. */
  UNDRAIN
}
