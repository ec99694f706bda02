package io.tcpopt.servicenode.intercept.transparent;

/**
 * Transparent interception rules could not be installed: a missing tool, missing privileges, an
 * invalid prefix, or a command that failed (its stderr is in the message, on one line).
 */
public final class TproxyException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public TproxyException(String message) {
    super(message);
  }

  public TproxyException(String message, Throwable cause) {
    super(message, cause);
  }
}
