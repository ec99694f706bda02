package io.tcpopt.common.transport;

/**
 * Why a flow was reset rather than ended cleanly. A reset always reaches the end hosts as an RST
 * (a leg reset with SO_LINGER 0); between nodes the WAN stream carries it as its RST_STREAM code.
 */
public enum ResetCause {
  /** A leg was reset, failed, closed early, or lost bytes on a write. */
  CONNECTION_RESET,
  /** The server refused the connection (or it failed for another reason than a timeout). */
  CONNECT_REFUSED,
  /** The server did not answer within the connect timeout. */
  CONNECT_TIMEOUT,
  /** No bytes on a leg for its idle timeout. */
  IDLE_TIMEOUT,
  /** The flow could not be carried to where it was meant to go (no stream could be opened). */
  NO_ROUTE,
  /** The node refused the flow (admission: a limit was reached). */
  REFUSED,
  /** The node is stopping. */
  SHUTTING_DOWN,
  /** The peer broke the protocol for this flow. */
  PROTOCOL_ERROR,
  /** Anything else: a lost WAN connection, a bug. */
  INTERNAL
}
