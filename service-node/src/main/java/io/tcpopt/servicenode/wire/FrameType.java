package io.tcpopt.servicenode.wire;

/** Frame type codes and flags of wire format 2 (docs/wire-format.md). */
public final class FrameType {
  public static final int HELLO = 0x0;
  public static final int OPEN = 0x1;
  public static final int DATA = 0x2;
  public static final int WINDOW_UPDATE = 0x3;
  public static final int RST_STREAM = 0x4;
  public static final int PING = 0x5;
  public static final int GOAWAY = 0x6;
  /** Data reduction's control messages between two nodes' caches (connection level, stream 0). */
  public static final int REDUCTION = 0x7;

  /** DATA flag: the sender's TCP leg was half-closed after these bytes. */
  public static final int FLAG_END_STREAM = 0x1;
  /** DATA flag: the payload is a data-reduction segment (docs/data-reduction.md); credit counts its decoded length. */
  public static final int FLAG_ENCODED = 0x2;
  /**
   * DATA flag: the frame travels on another connection of the peer than its stream's; the index of
   * the stream's connection (its <em>home</em>) follows the offset.
   */
  public static final int FLAG_HOME = 0x4;
  /** PING flag: this PING is the echo of one received. */
  public static final int FLAG_ACK = 0x1;
  /**
   * WINDOW_UPDATE flag: the increment enlarges the stream's window (the receiver's auto-tuning); it
   * acknowledges no bytes, so the sender adds it to the window it counts delivery against.
   */
  public static final int FLAG_GROW = 0x1;
  /**
   * WINDOW_UPDATE flag, sent by the sender of the stream's data: it gives back the increment of the
   * credit it was granted and left unused; its window is that much smaller. Not with GROW.
   */
  public static final int FLAG_RETURN = 0x2;

  /** Frame header length: length u32, type u8, flags u8, reserved u16, stream-id u32. */
  public static final int HEADER_LENGTH = 12;

  private FrameType() {}

  static String name(int type) {
    switch (type) {
      case HELLO: return "HELLO";
      case OPEN: return "OPEN";
      case DATA: return "DATA";
      case WINDOW_UPDATE: return "WINDOW_UPDATE";
      case RST_STREAM: return "RST_STREAM";
      case PING: return "PING";
      case GOAWAY: return "GOAWAY";
      case REDUCTION: return "REDUCTION";
      default: return "type 0x" + Integer.toHexString(type);
    }
  }
}
