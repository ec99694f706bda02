package io.tcpopt.servicenode.trust;

/**
 * The hook a WAN connection calls once, when the peer's HELLO arrives, before anything else of the
 * peer is acted upon. Called on the connection's event loop; must not block.
 */
@FunctionalInterface
public interface HelloAdmission {
  /**
   * @param certificateIdentity the name in the peer's TLS certificate, null on a plaintext session
   * @param helloName the name the HELLO claims
   * @param helloSite the site the HELLO claims
   */
  PeerAdmission admit(String certificateIdentity, String helloName, String helloSite);
}
