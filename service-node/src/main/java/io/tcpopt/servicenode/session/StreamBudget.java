package io.tcpopt.servicenode.session;

/**
 * Where a stream reserves the memory its growing windows may make the node hold (the node's buffer
 * budget, through the flow's admission claim). Called on the stream's event loop.
 */
@FunctionalInterface
public interface StreamBudget {
  /** No limit beyond the configured maximum window (streams that no admission claimed: tests, tools). */
  StreamBudget UNLIMITED = bytes -> true;

  /** Reserves {@code bytes} more for the stream; false (nothing reserved) when they do not fit. */
  boolean reserve(long bytes);
}
