package io.tcpopt.common.http;

import java.time.Duration;

/**
 * What one {@link BoundedHttpServer} allows a client.
 *
 * @param maxConnections open connections at once; a connection over the cap is closed as it is accepted (default 256)
 * @param requestTimeout from the connect (TLS handshake included) until a whole request has arrived (default 10 s)
 * @param idleTimeout from a response until the next whole request on a keep-alive connection (default 30 s)
 * @param responseTimeout from a whole request until its response is written (default 60 s)
 * @param maxHeaderBytes request line and headers, each (default 8 KiB)
 * @param maxBodyBytes request body (default 64 KiB); a larger one gets 413
 */
public record HttpLimits(
    int maxConnections, Duration requestTimeout, Duration idleTimeout, Duration responseTimeout, int maxHeaderBytes, int maxBodyBytes) {
  public static final HttpLimits DEFAULT =
      new HttpLimits(256, Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofSeconds(60), 8 << 10, 64 << 10);

  public HttpLimits {
    if (maxConnections < 1 || maxHeaderBytes < 256 || maxBodyBytes < 0) {
      throw new IllegalArgumentException("HTTP limits out of range: " + maxConnections + " connections, " + maxHeaderBytes
          + " header bytes, " + maxBodyBytes + " body bytes");
    }
    for (Duration d : new Duration[] {requestTimeout, idleTimeout, responseTimeout}) {
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException("HTTP timeouts must be positive: " + d);
      }
    }
  }

  public HttpLimits withMaxBodyBytes(int bytes) {
    return new HttpLimits(maxConnections, requestTimeout, idleTimeout, responseTimeout, maxHeaderBytes, bytes);
  }

  public HttpLimits withMaxConnections(int connections) {
    return new HttpLimits(connections, requestTimeout, idleTimeout, responseTimeout, maxHeaderBytes, maxBodyBytes);
  }

  public HttpLimits withTimeouts(Duration request, Duration idle, Duration response) {
    return new HttpLimits(maxConnections, request, idle, response, maxHeaderBytes, maxBodyBytes);
  }
}
