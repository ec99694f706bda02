package io.tcpopt.servicenode;

import io.tcpopt.servicenode.intercept.transparent.TproxyException;
import io.tcpopt.servicenode.intercept.transparent.TproxyRules;
import java.util.Optional;

/**
 * Installs the node's transparent rules (nftables TPROXY + policy routing, {@link TproxyRules}):
 * the interception of {@code interception.transparent} (call once its listener is bound, so that
 * no diverted connection meets a closed port), and the return path of connections made from
 * clients' addresses ({@code client-address.allow}), which the interception's table includes.
 */
final class TransparentRules {
  static final int MARK = 1;
  static final int ROUTE_TABLE = 100;

  private TransparentRules() {}

  /** The rules this config needs, or empty when it needs none (no interception rules, nothing allowed). */
  static Optional<TproxyRules> install(ServiceNodeConfig config) {
    ServiceNodeConfig.Transparent t = config.interception().transparent();
    boolean intercept = t != null && t.installRules();
    if (!intercept && config.clientAddress().allow().isEmpty()) {
      return Optional.empty();
    }
    String field = intercept ? "service-node.interception.transparent" : "service-node.client-address.allow";
    try {
      return Optional.of(TproxyRules.install(intercept ? new TproxyRules.Diversion(t.port(), t.sources(), t.destinations()) : null, MARK,
          ROUTE_TABLE));
    } catch (TproxyException e) {
      throw new ServiceNodeException(field + ": " + e.getMessage(), e);
    }
  }
}
