package io.tcpopt.servicenode.session;

import io.netty.buffer.ByteBuf;

/** A stream handler that takes bytes and writes them nowhere (so it returns no credit) and ignores every event. */
class DiscardingStreamHandler implements StreamHandler {
  @Override
  public void onData(ByteBuf data, boolean endStream) {
    data.release();
  }

  @Override
  public void onWindowUpdate() {}

  @Override
  public void onReset(int code, String reason) {}

  @Override
  public void onSendRoom() {}
}
