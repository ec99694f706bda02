package io.tcpopt.servicenode.wire;

/** The sender is closing the connection: no stream above {@code lastStreamId} was or will be processed. */
public record GoAwayFrame(int lastStreamId, int code, String reason) implements Frame {
  @Override
  public int streamId() {
    return 0;
  }
}
