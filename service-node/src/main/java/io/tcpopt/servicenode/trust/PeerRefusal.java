package io.tcpopt.servicenode.trust;

import io.tcpopt.servicenode.wire.WireCodes;

/**
 * Why a HELLO was refused: the GOAWAY code the peer receives and the {@code reason} label of the
 * {@code tcpopt.session.refused} counter (a fixed set; the names involved go to the log).
 */
public enum PeerRefusal {
  /** The certificate names another node than the HELLO, or the dialled peer answered as another. */
  IDENTITY_MISMATCH(WireCodes.GOAWAY_IDENTITY_MISMATCH, "identity-mismatch"),
  /** Neither configured nor registered with the controller. */
  UNKNOWN_PEER(WireCodes.GOAWAY_UNKNOWN_PEER, "unknown-peer"),
  /** A known peer claiming a site other than the one configured or registered for it. */
  SITE_MISMATCH(WireCodes.GOAWAY_SITE_MISMATCH, "site-mismatch");

  private final int goAwayCode;
  private final String label;

  PeerRefusal(int goAwayCode, String label) {
    this.goAwayCode = goAwayCode;
    this.label = label;
  }

  public int goAwayCode() {
    return goAwayCode;
  }

  /** The metric label value. */
  public String label() {
    return label;
  }
}
