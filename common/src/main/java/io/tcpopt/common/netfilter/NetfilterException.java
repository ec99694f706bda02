package io.tcpopt.common.netfilter;

/**
 * A netfilter or policy-routing change could not be made: a missing tool, missing privileges, or a
 * command that failed (its stderr is in the message, on one line).
 */
public final class NetfilterException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public NetfilterException(String message) {
    super(message);
  }

  public NetfilterException(String message, Throwable cause) {
    super(message, cause);
  }
}
