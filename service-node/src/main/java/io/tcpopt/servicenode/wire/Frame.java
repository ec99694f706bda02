package io.tcpopt.servicenode.wire;

/** One decoded frame of the inter-node session. Frames that carry bytes are reference counted. */
public interface Frame {
  /** The stream this frame belongs to; 0 for connection-level frames. */
  int streamId();
}
