package io.tcpopt.common.profile;

import java.util.Objects;

/**
 * The resolved profiles of each of the three legs of an optimized flow: client to near node, the
 * inter-node WAN session, far node to server — the TCP profile of each leg, and the optional
 * application profiles of the end legs: TLS termination on the client leg ({@code clientSsl}), TLS
 * and HTTP server-connection reuse on the server leg ({@code serverSsl}, {@code httpReuse}).
 *
 * @param clientSsl terminate the client's TLS at the intercepting node; null = bytes pass as they are
 * @param serverSsl encrypt the server leg at the far node; null = plaintext to the server
 * @param httpReuse send the flow's HTTP/1.1 requests on pooled server connections; null = one
 *     server connection per flow
 */
public record LegProfiles(
    TcpProfile client, TcpProfile wan, TcpProfile server, ClientSslProfile clientSsl, ServerSslProfile serverSsl, HttpReuseProfile httpReuse) {
  /** Default profile names when an optimize action does not name them. */
  public static final String DEFAULT_CLIENT = TcpProfiles.LAN_OPTIMIZED;

  public static final String DEFAULT_WAN = TcpProfiles.WAN_OPTIMIZED;
  public static final String DEFAULT_SERVER = TcpProfiles.LAN_OPTIMIZED;

  public LegProfiles {
    Objects.requireNonNull(client, "client");
    Objects.requireNonNull(wan, "wan");
    Objects.requireNonNull(server, "server");
  }

  /** TCP profiles only: no TLS termination, no server-connection reuse. */
  public LegProfiles(TcpProfile client, TcpProfile wan, TcpProfile server) {
    this(client, wan, server, null, null, null);
  }

  /** The built-in defaults: LAN-optimized on both ends, WAN-optimized in the middle. */
  public static LegProfiles defaults() {
    return new LegProfiles(
        TcpProfiles.builtIn(DEFAULT_CLIENT), TcpProfiles.builtIn(DEFAULT_WAN), TcpProfiles.builtIn(DEFAULT_SERVER));
  }
}
