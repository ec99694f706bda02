package io.tcpopt.servicenode.wire;

/** Keepalive and RTT probe; the receiver echoes the opaque value with {@code ack} set. */
public record PingFrame(long opaque, boolean ack) implements Frame {
  @Override
  public int streamId() {
    return 0;
  }
}
