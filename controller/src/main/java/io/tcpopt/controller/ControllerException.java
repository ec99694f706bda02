package io.tcpopt.controller;

/** The controller could not start; the message is one operator line. */
public final class ControllerException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ControllerException(String message, Throwable cause) {
    super(message, cause);
  }
}
