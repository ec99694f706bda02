package io.tcpopt.servicenode;

/** Installs the transparent interception rules (nftables TPROXY + policy routing) for the listener. */
final class TransparentRules {
  static final int MARK = 1;
  static final int ROUTE_TABLE = 100;

  private TransparentRules() {}

  static AutoCloseable install(ServiceNodeConfig.Transparent t) {
    throw new ServiceNodeException("service-node.interception.transparent.install-rules: the rule installer is not part of this build");
  }
}
