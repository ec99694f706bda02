package io.tcpopt.servicenode.session;

import io.netty.buffer.ByteBuf;

/** What a stream tells the code that joins it to a TCP leg. Called on the stream's event loop. */
interface StreamHandler {
  /** Bytes from the peer (ownership passes to the handler); {@code endStream}: the peer's leg half-closed. */
  void onData(ByteBuf data, boolean endStream);

  /** As {@link #onData(ByteBuf, boolean)}; {@code encoded}: the bytes are a data-reduction segment (ENCODED DATA). */
  default void onData(ByteBuf data, boolean endStream, boolean encoded) {
    onData(data, endStream);
  }

  /** The peer returned credit: more may be sent. */
  void onWindowUpdate();

  /** As {@link #onWindowUpdate()}, with the credit returned (data reduction counts it as acknowledged bytes). */
  default void onWindowUpdate(int increment) {
    onWindowUpdate();
  }

  /**
   * The peer wrote to its leg every byte this side sent before its END_STREAM (it granted them
   * all back): this direction is delivered.
   */
  default void onEndDelivered() {}

  /** The stream is gone: the peer reset it, or the WAN connection failed. */
  void onReset(int code, String reason);

  /** The stream's send queue, which was full, has room again: send what waits. */
  void onSendRoom();
}
