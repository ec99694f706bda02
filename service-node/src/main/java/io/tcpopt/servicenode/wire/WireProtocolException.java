package io.tcpopt.servicenode.wire;

import io.netty.handler.codec.DecoderException;

/**
 * A connection error: the peer broke wire format v1. The session answers with GOAWAY carrying
 * {@link #goAwayCode()} and closes the connection, logging the reason.
 */
public final class WireProtocolException extends DecoderException {
  private static final long serialVersionUID = 1L;

  private final int goAwayCode;

  public WireProtocolException(int goAwayCode, String reason) {
    super(reason);
    this.goAwayCode = goAwayCode;
  }

  public int goAwayCode() {
    return goAwayCode;
  }

  /** The reason says what the peer did; a stack trace would only cost a hostile peer's target CPU. */
  @Override
  public synchronized Throwable fillInStackTrace() {
    return this;
  }
}
