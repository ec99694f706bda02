package io.tcpopt.controller.console;

/** A request the console refuses with 400 and one line naming the field, e.g. {@code port: must be ...}. */
final class BadRequestException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  BadRequestException(String message) {
    super(message);
  }
}
