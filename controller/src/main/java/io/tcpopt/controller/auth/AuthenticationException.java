package io.tcpopt.controller.auth;

/** A request's credentials identify nobody; the message says what was missing or wrong (never the secret). */
public final class AuthenticationException extends Exception {
  private static final long serialVersionUID = 1L;

  public AuthenticationException(String message) {
    super(message);
  }
}
