package io.tcpopt.servicenode.reuse;

/**
 * The parts of an HTTP/1.x message head that decide its framing and the connection's reuse.
 *
 * @param method the request method; for a response, the method of the request it answers
 * @param status the response status; 0 for a request
 * @param minorVersion 0 for HTTP/1.0, 1 for HTTP/1.1
 * @param contentLength the Content-Length, or -1 when absent
 * @param transferEncoding whether a Transfer-Encoding header is present
 * @param chunked whether the last transfer coding is {@code chunked}
 * @param close {@code Connection: close}
 * @param keepAlive {@code Connection: keep-alive}
 * @param upgrade an {@code Upgrade} header or {@code Connection: upgrade}
 */
record HttpHead(
    boolean request,
    String method,
    int status,
    int minorVersion,
    long contentLength,
    boolean transferEncoding,
    boolean chunked,
    boolean close,
    boolean keepAlive,
    boolean upgrade) {

  /** Whether the sender keeps the connection open after this message (RFC 9112 §9.3). */
  boolean persistent() {
    return minorVersion >= 1 ? !close : keepAlive && !close;
  }

  boolean isConnect() {
    return "CONNECT".equals(method);
  }

  /** A 1xx response other than 101: an interim response, the final one follows. */
  boolean interim() {
    return !request && status >= 100 && status < 200 && status != 101;
  }
}
