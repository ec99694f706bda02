package io.tcpopt.servicenode.wire;

/**
 * Returns {@code increment} bytes of credit for one stream. {@code grow} (flag GROW): the credit
 * enlarges the stream's window instead of acknowledging bytes written to the receiver's leg.
 */
public record WindowUpdateFrame(int streamId, int increment, boolean grow) implements Frame {
  /** An acknowledging grant: bytes the receiver wrote to its leg. */
  public WindowUpdateFrame(int streamId, int increment) {
    this(streamId, increment, false);
  }
}
