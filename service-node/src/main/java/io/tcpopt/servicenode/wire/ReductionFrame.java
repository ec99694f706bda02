package io.tcpopt.servicenode.wire;

/**
 * A control message of data reduction between two nodes' chunk caches (EPOCH, NACK, RESUPPLY,
 * EVICTED; format in docs/data-reduction.md), carried as it is. Connection level: not tied to a
 * stream, in any order with respect to DATA.
 */
public record ReductionFrame(byte[] message) implements Frame {
  @Override
  public int streamId() {
    return 0;
  }
}
