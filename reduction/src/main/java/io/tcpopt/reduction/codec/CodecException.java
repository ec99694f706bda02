package io.tcpopt.reduction.codec;

/** A literal block that does not decode to what its segment states. */
public final class CodecException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public CodecException(String message) {
    super(message);
  }
}
