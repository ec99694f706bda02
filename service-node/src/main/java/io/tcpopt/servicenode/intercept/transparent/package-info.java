/**
 * Transparent interception on Linux: the nftables TPROXY rule and the policy routing that steer
 * selected client TCP flows to the node's IP_TRANSPARENT listener, installed at start and removed
 * at stop ({@link io.tcpopt.servicenode.intercept.transparent.TproxyRules}). The listener itself
 * belongs to the service node: each accepted connection's local address is the client's original
 * destination.
 */
package io.tcpopt.servicenode.intercept.transparent;
