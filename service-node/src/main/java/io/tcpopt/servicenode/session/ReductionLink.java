package io.tcpopt.servicenode.session;

import io.tcpopt.reduction.PeerReduction;

/**
 * What a WAN connection asks of the node's data reduction: the cache fields of its HELLO, where the
 * peer's control messages go, and the peer's state for the streams it carries. Implemented by
 * {@code servicenode.reduction.WanReduction}; {@link #NONE} for a node without a chunk cache.
 * Called on the connection's event loop.
 */
public interface ReductionLink {
  ReductionLink NONE = new ReductionLink() {
    @Override
    public long cacheEpoch() {
      return 0;
    }

    @Override
    public long cacheCapacity() {
      return 0;
    }

    @Override
    public void sessionUp(StreamMultiplexer connection) {}

    @Override
    public void sessionDown(StreamMultiplexer connection) {}

    @Override
    public void onControl(StreamMultiplexer connection, byte[] message) {
      connection.connectionError(io.tcpopt.servicenode.wire.WireCodes.GOAWAY_PROTOCOL_ERROR, "REDUCTION frame to a node without data reduction");
    }

    @Override
    public PeerReduction peer(StreamMultiplexer connection) {
      return null;
    }
  };

  /** This node's cache epoch for its HELLO (0: no cache). */
  long cacheEpoch();

  /** This node's cache capacity in bytes for its HELLO (0: no cache). */
  long cacheCapacity();

  /** The connection completed its HELLO exchange (the peer's cache fields are in its HELLO). */
  void sessionUp(StreamMultiplexer connection);

  /** The connection is down. */
  void sessionDown(StreamMultiplexer connection);

  /** A REDUCTION frame arrived; a malformed one is a connection error of the peer. */
  void onControl(StreamMultiplexer connection, byte[] message);

  /** The peer's data-reduction state for streams on {@code connection}, or null when either side has no cache. */
  PeerReduction peer(StreamMultiplexer connection);
}
