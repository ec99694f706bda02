package io.tcpopt.servicenode;

import io.tcpopt.common.policy.Cidr;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

/** Destination address → peer site, by the longest prefix among the configured peers' prefixes. */
final class SiteRoutes {
  private record Route(Cidr prefix, String site) {}

  private final List<Route> routes = new ArrayList<>();

  SiteRoutes(List<ServiceNodeConfig.Peer> peers) {
    for (ServiceNodeConfig.Peer p : peers) {
      for (String prefix : p.prefixes()) {
        routes.add(new Route(Cidr.parse(prefix), p.site())); // validated by ServiceNodeConfig
      }
    }
  }

  /** The site serving {@code destination}, or null when no peer prefix contains it. */
  String siteFor(InetAddress destination) {
    Route best = null;
    for (Route r : routes) {
      if (r.prefix().contains(destination) && (best == null || r.prefix().prefixLength() > best.prefix().prefixLength())) {
        best = r;
      }
    }
    return best == null ? null : best.site();
  }
}
