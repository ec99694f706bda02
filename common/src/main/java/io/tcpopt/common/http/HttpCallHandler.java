package io.tcpopt.common.http;

import java.io.IOException;

/**
 * Answers one request of a {@link BoundedHttpServer}, on the server's executor (it may block). It
 * calls {@link HttpCall#respond} once; a handler that throws or returns without responding makes
 * the server answer 500.
 */
@FunctionalInterface
public interface HttpCallHandler {
  void handle(HttpCall call) throws IOException;
}
