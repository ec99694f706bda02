package io.tcpopt.servicenode.wire;

/**
 * Credit for one stream. Without flags, the receiver of the stream's data returns {@code increment}
 * bytes of credit: bytes it wrote to its leg. {@code grow} (flag GROW): the receiver enlarges the
 * stream's window instead of acknowledging bytes. {@code giveBack} (flag RETURN, sent the other
 * way): the sender of the stream's data gives back {@code increment} bytes of the credit it was
 * granted and left unused, and its window is that much smaller (docs/wire-format.md, section 7).
 */
public record WindowUpdateFrame(int streamId, int increment, boolean grow, boolean giveBack) implements Frame {
  public WindowUpdateFrame {
    if (grow && giveBack) {
      throw new IllegalArgumentException("a WINDOW_UPDATE is GROW or RETURN, not both");
    }
  }

  /** An acknowledging grant ({@code grow} false) or a window's growth. */
  public WindowUpdateFrame(int streamId, int increment, boolean grow) {
    this(streamId, increment, grow, false);
  }

  /** An acknowledging grant: bytes the receiver wrote to its leg. */
  public WindowUpdateFrame(int streamId, int increment) {
    this(streamId, increment, false, false);
  }

  /** The sender of the stream's data gives back {@code increment} bytes of unused credit (flag RETURN). */
  public static WindowUpdateFrame giveBack(int streamId, int increment) {
    return new WindowUpdateFrame(streamId, increment, false, true);
  }
}
