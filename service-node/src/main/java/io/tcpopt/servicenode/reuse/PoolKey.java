package io.tcpopt.servicenode.reuse;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * Which idle server connections a request may use: the same server, clients equal under the
 * profile's source mask, and the same way of talking to the server ({@code transport}: {@code
 * plain}, or the server-SSL profile and name), so that a request never rides a connection set up
 * for something else.
 */
public record PoolKey(InetSocketAddress server, InetAddress maskedSource, String transport) {
  public static final String PLAIN = "plain";

  public PoolKey {
    Objects.requireNonNull(server, "server");
    Objects.requireNonNull(maskedSource, "maskedSource");
    Objects.requireNonNull(transport, "transport");
  }
}
