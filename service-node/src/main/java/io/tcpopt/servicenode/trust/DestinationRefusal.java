package io.tcpopt.servicenode.trust;

/**
 * Why the far node refused to connect a peer's stream to its destination: the {@code reason} label
 * of {@code tcpopt.streams.refused} (a fixed set; the address goes to the flow table and the log).
 */
public enum DestinationRefusal {
  /** Outside every prefix of {@code service-node.serves}. */
  NOT_SERVED("not-served"),
  /** 127.0.0.0/8 or ::1, unless {@code serves} names a loopback prefix (labs). */
  LOOPBACK("loopback"),
  /** 169.254.0.0/16 or fe80::/10. */
  LINK_LOCAL("link-local"),
  /** 224.0.0.0/4 or ff00::/8. */
  MULTICAST("multicast"),
  /** 255.255.255.255 or the broadcast address of one of this host's subnets. */
  BROADCAST("broadcast"),
  /** 0.0.0.0/8 or :: (a connect there reaches this host). */
  UNSPECIFIED("unspecified"),
  /** An address of one of this host's interfaces. */
  OWN_ADDRESS("own-address"),
  /** A port this node listens on, on a loopback address it serves. */
  OWN_PORT("own-port");

  private final String label;

  DestinationRefusal(String label) {
    this.label = label;
  }

  /** The metric label value, also the short reason in the flow table. */
  public String label() {
    return label;
  }
}
