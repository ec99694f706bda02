package io.tcpopt.servicenode.reuse;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * Which idle server connections a request may use: the same server, clients equal under the
 * profile's source mask, and the same way of talking to the server ({@code transport}: {@code
 * plain}, or the server-SSL profile and name), so that a request never rides a connection set up
 * for something else.
 *
 * <p>{@code bindSource} is the address pooled connections of this key connect from: null for the
 * node's own address, or the client's own address when the flow keeps it (client-address
 * transparency). Such a key pools one client's flows only ({@code maskedSource} is then the whole
 * client address, whatever the profile's mask), so the server never sees one client's request
 * arrive from another client's address — F5's OneConnect without SNAT, where only a host mask
 * gives consistent source addresses.
 */
public record PoolKey(InetSocketAddress server, InetAddress maskedSource, String transport, InetAddress bindSource) {
  public static final String PLAIN = "plain";

  public PoolKey {
    Objects.requireNonNull(server, "server");
    Objects.requireNonNull(maskedSource, "maskedSource");
    Objects.requireNonNull(transport, "transport");
    if (bindSource != null && !bindSource.equals(maskedSource)) {
      throw new IllegalArgumentException("connections from the client's address " + bindSource + " pool that client only, not " + maskedSource);
    }
  }

  /** Connections from the node's own address, shared by the clients equal under the mask. */
  public PoolKey(InetSocketAddress server, InetAddress maskedSource, String transport) {
    this(server, maskedSource, transport, null);
  }

  /** Connections from {@code client}'s own address, for that client only. */
  static PoolKey fromClientAddress(InetSocketAddress server, InetAddress client, String transport) {
    return new PoolKey(server, client, transport, client);
  }
}
