package io.tcpopt.servicenode.wire;

/**
 * The handshake: each side's first frame, announcing what it accepts. {@code maxFrameSize} bounds
 * the payloads the sender of this HELLO will accept, {@code initialStreamWindow} is the credit it
 * grants every new stream, {@code maxStreams} how many concurrent streams the peer may open to it.
 * {@code session} and {@code connection} name the connection within its dialler's pool (a random
 * non-zero value per pool instance, the connection's index in it; both 0 in an acceptor's HELLO).
 * {@code cacheEpoch} and {@code cacheCapacity} name the sender's data-reduction chunk cache (0 and
 * 0: it has none), so that both caches agree from the first stream on.
 */
public record HelloFrame(int version, int maxFrameSize, int initialStreamWindow, int maxStreams, long session, int connection, String name,
    String site, long cacheEpoch, long cacheCapacity) implements Frame {
  public static final int MAGIC = 0x5443504F;
  /** Wire format 2: DATA carries its stream offset. Version 1 is refused (GOAWAY VERSION). */
  public static final int VERSION = 2;
  public static final int MIN_MAX_FRAME_SIZE = 16 * 1024;
  public static final int MAX_MAX_FRAME_SIZE = 16 * 1024 * 1024;
  /** The shortest HELLO payload (two empty names, no cache fields). */
  static final int MIN_PAYLOAD = 4 + 2 + 2 + 4 + 4 + 4 + 8 + 4 + 1 + 1;
  /** The longest possible HELLO payload (two names of 255 bytes, the cache fields). */
  static final int MAX_PAYLOAD = MIN_PAYLOAD + 255 + 255 + 8 + 8;

  /** A HELLO of an acceptor (session and connection 0) without a data-reduction cache. */
  public HelloFrame(int version, int maxFrameSize, int initialStreamWindow, int maxStreams, String name, String site) {
    this(version, maxFrameSize, initialStreamWindow, maxStreams, 0, 0, name, site, 0, 0);
  }

  public HelloFrame {
    if (maxFrameSize < MIN_MAX_FRAME_SIZE || maxFrameSize > MAX_MAX_FRAME_SIZE) {
      throw new IllegalArgumentException("max-frame-size out of range: " + maxFrameSize);
    }
    if (initialStreamWindow < 1 || maxStreams < 1) {
      throw new IllegalArgumentException("window and max-streams must be positive");
    }
  }

  @Override
  public int streamId() {
    return 0;
  }
}
