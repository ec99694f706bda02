package io.tcpopt.servicenode.reuse;

/** A message that cannot be framed safely; {@link #notHttp1()} when it is not HTTP/1.x at all. */
final class HttpFramingException extends Exception {
  private final boolean notHttp1;

  HttpFramingException(String message, boolean notHttp1) {
    super(message, null, false, false);
    this.notHttp1 = notHttp1;
  }

  static HttpFramingException malformed(String message) {
    return new HttpFramingException(message, false);
  }

  static HttpFramingException notHttp1(String message) {
    return new HttpFramingException(message, true);
  }

  boolean notHttp1() {
    return notHttp1;
  }
}
