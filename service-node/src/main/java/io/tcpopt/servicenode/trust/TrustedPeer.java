package io.tcpopt.servicenode.trust;

/** A peer node this node accepts sessions from, and the site the operator or controller says it serves. */
public record TrustedPeer(String name, String site) {}
