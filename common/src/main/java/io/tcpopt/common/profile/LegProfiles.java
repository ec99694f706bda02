package io.tcpopt.common.profile;

import java.util.Objects;

/**
 * The resolved profile of each of the three legs of an optimized flow: client to near node, the
 * inter-node WAN session, far node to server.
 */
public record LegProfiles(TcpProfile client, TcpProfile wan, TcpProfile server) {
  /** Default profile names when an optimize action does not name them. */
  public static final String DEFAULT_CLIENT = TcpProfiles.LAN_OPTIMIZED;

  public static final String DEFAULT_WAN = TcpProfiles.WAN_OPTIMIZED;
  public static final String DEFAULT_SERVER = TcpProfiles.LAN_OPTIMIZED;

  public LegProfiles {
    Objects.requireNonNull(client, "client");
    Objects.requireNonNull(wan, "wan");
    Objects.requireNonNull(server, "server");
  }

  /** The built-in defaults: LAN-optimized on both ends, WAN-optimized in the middle. */
  public static LegProfiles defaults() {
    return new LegProfiles(
        TcpProfiles.builtIn(DEFAULT_CLIENT), TcpProfiles.builtIn(DEFAULT_WAN), TcpProfiles.builtIn(DEFAULT_SERVER));
  }
}
