package io.tcpopt.servicenode.trust;

/**
 * The answer to a HELLO: the peer's name and site (from this node's configuration or registry) when
 * admitted, else the refusal and a one-line reason for the log and the GOAWAY.
 */
public record PeerAdmission(String name, String site, PeerRefusal refusal, String reason) {
  public static PeerAdmission admitted(String name, String site) {
    return new PeerAdmission(name, site, null, null);
  }

  public static PeerAdmission refused(PeerRefusal refusal, String reason) {
    return new PeerAdmission(null, null, refusal, reason);
  }

  public boolean isAdmitted() {
    return refusal == null;
  }
}
