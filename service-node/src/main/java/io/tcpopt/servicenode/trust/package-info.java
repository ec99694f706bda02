/**
 * Whom a node trusts on the WAN, and how far. A session's peer is the identity in its TLS
 * certificate, which must equal the name in its HELLO and name a peer this node is configured with
 * or that its controller registered; the peer's site comes from that configuration or
 * registration, never from the HELLO. {@link io.tcpopt.servicenode.trust.PeerAuthority} decides at
 * HELLO time (the session calls it through {@link io.tcpopt.servicenode.trust.HelloAdmission}); a
 * refusal is a GOAWAY with the code of its {@link io.tcpopt.servicenode.trust.PeerRefusal}, logged
 * and counted. Even an admitted peer's streams are connected only where {@link
 * io.tcpopt.servicenode.trust.DestinationGuard} allows: this site's prefixes, never this node
 * itself or a special address; a refusal is an RST_STREAM with the reason, counted by {@link
 * io.tcpopt.servicenode.trust.DestinationRefusal}.
 */
package io.tcpopt.servicenode.trust;
