package io.tcpopt.servicenode.session;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.tcpopt.servicenode.wire.DataFrame;
import io.tcpopt.servicenode.wire.RstStreamFrame;
import io.tcpopt.servicenode.wire.WindowUpdateFrame;
import io.tcpopt.servicenode.wire.WireCodes;

/**
 * One flow carried over a WAN connection, with its credit both ways. The sender may have at most
 * {@link #sendWindow()} bytes unacknowledged; received bytes are granted back (WINDOW_UPDATE) only
 * once written to the local TCP leg ({@link #consumed}), batched at a quarter window. All methods
 * run on the connection's event loop. Outside this package a stream is an opaque token handed to
 * a {@link StreamAcceptor}: the data path sees it only through {@link WanStreamUpstream}.
 */
public final class MuxStream {
  private final StreamMultiplexer mux;
  private final int id;
  private StreamHandler handler;
  private long sendWindow;
  private int receiveCredit;
  private int unacknowledged;
  private boolean sentEnd;
  private boolean receivedEnd;
  private boolean removed;

  MuxStream(StreamMultiplexer mux, int id, long sendWindow, int receiveCredit) {
    this.mux = mux;
    this.id = id;
    this.sendWindow = sendWindow;
    this.receiveCredit = receiveCredit;
  }

  int id() {
    return id;
  }

  void handler(StreamHandler handler) {
    this.handler = handler;
  }

  EventLoop eventLoop() {
    return mux.channel().eventLoop();
  }

  Channel wanChannel() {
    return mux.channel();
  }

  StreamMultiplexer connection() {
    return mux;
  }

  /** Bytes that may still be sent before the peer grants more. */
  long sendWindow() {
    return removed ? 0 : sendWindow;
  }

  /** Largest DATA payload the peer accepts. */
  int maxDataPayload() {
    return mux.peerMaxFrameSize();
  }

  /** Sends bytes (at most {@link #sendWindow()} and {@link #maxDataPayload()}); takes ownership. */
  void writeData(ByteBuf data, boolean endStream) {
    if (removed || sentEnd) {
      data.release();
      return;
    }
    sendWindow -= data.readableBytes();
    sentEnd = endStream;
    mux.write(new DataFrame(id, data, endStream));
    removeIfDone();
  }

  void flush() {
    mux.flush();
  }

  /** {@code bytes} received on this stream were written to the local leg: grant them back. */
  void consumed(int bytes) {
    if (removed || receivedEnd) {
      return;
    }
    unacknowledged += bytes;
    if (unacknowledged >= Math.max(1, mux.localWindow() / 4)) {
      receiveCredit += unacknowledged;
      mux.write(new WindowUpdateFrame(id, unacknowledged));
      mux.flush();
      unacknowledged = 0;
    }
  }

  /** Aborts the stream: the peer resets its leg. */
  void reset(int code, String reason) {
    if (removed) {
      return;
    }
    removed = true;
    mux.remove(this);
    mux.write(new RstStreamFrame(id, code, reason));
    mux.flush();
  }

  void onData(DataFrame frame) {
    int n = frame.content().readableBytes();
    if (n > receiveCredit) {
      frame.release();
      mux.connectionError(WireCodes.GOAWAY_FLOW_CONTROL, "stream " + id + " sent " + n + " bytes beyond its window (" + receiveCredit + " left)");
      return;
    }
    receiveCredit -= n;
    if (receivedEnd) {
      frame.release();
      reset(WireCodes.PROTOCOL_ERROR, "DATA after END_STREAM");
      handler.onReset(WireCodes.PROTOCOL_ERROR, "peer sent DATA after END_STREAM");
      return;
    }
    receivedEnd = frame.endStream();
    removeIfDone();
    handler.onData(frame.content(), frame.endStream());
  }

  void onWindowUpdate(int increment) {
    sendWindow += increment;
    if (sendWindow > Integer.MAX_VALUE) {
      mux.connectionError(WireCodes.GOAWAY_FLOW_CONTROL, "stream " + id + " window above 2^31-1");
      return;
    }
    handler.onWindowUpdate();
  }

  void onReset(int code, String reason) {
    removed = true;
    mux.remove(this);
    handler.onReset(code, reason);
  }

  void onConnectionLost(String reason) {
    removed = true;
    handler.onReset(WireCodes.INTERNAL, reason);
  }

  void onWritabilityChanged() {
    handler.onWanWritabilityChanged();
  }

  private void removeIfDone() {
    if (sentEnd && receivedEnd && !removed) {
      removed = true;
      mux.remove(this);
    }
  }
}
