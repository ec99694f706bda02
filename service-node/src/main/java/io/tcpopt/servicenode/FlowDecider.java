package io.tcpopt.servicenode;

import java.net.InetSocketAddress;

/** Decides what happens to an intercepted flow. Called on an event loop: must not block. */
@FunctionalInterface
public interface FlowDecider {
  Verdict decide(InetSocketAddress client, InetSocketAddress originalDestination);

  /** No policy: optimize every flow that a peer serves. */
  static FlowDecider optimizeAll() {
    return (client, destination) -> new Verdict(Verdict.Kind.OPTIMIZE, "no policy: optimize all", null);
  }
}
