package io.tcpopt.servicenode;

import io.tcpopt.servicenode.intercept.transparent.TproxyException;
import io.tcpopt.servicenode.intercept.transparent.TproxyRules;

/**
 * Installs the transparent interception rules (nftables TPROXY + policy routing) for the listener:
 * call once the listener is bound, so that no diverted connection meets a closed port.
 */
final class TransparentRules {
  static final int MARK = 1;
  static final int ROUTE_TABLE = 100;

  private TransparentRules() {}

  static TproxyRules install(ServiceNodeConfig.Transparent t) {
    try {
      return TproxyRules.install(t.port(), MARK, ROUTE_TABLE, t.sources(), t.destinations());
    } catch (TproxyException e) {
      throw new ServiceNodeException("service-node.interception.transparent: " + e.getMessage(), e);
    }
  }
}
