package io.tcpopt.common.policy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Objects;

/** What the classifier sees of a new TCP flow: the VPN it arrived in and its address 4-tuple. */
public record FlowKey(int vpn, InetAddress source, int sourcePort, InetAddress destination, int destinationPort) {
  public FlowKey {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(destination, "destination");
  }

  /** A flow from {@code client} to the original {@code destination}, as a service node sees it. */
  public static FlowKey of(int vpn, InetSocketAddress client, InetSocketAddress destination) {
    return new FlowKey(vpn, client.getAddress(), client.getPort(), destination.getAddress(), destination.getPort());
  }
}
