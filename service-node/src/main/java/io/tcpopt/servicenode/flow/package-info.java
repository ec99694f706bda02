/**
 * The node's flow table: one entry per intercepted or carried flow (addresses, kind and reason,
 * state, bytes each way, buffered bytes, the carrying WAN connection's TCP_INFO, close reason),
 * with a bounded history of closed flows and immutable snapshots for the API.
 */
package io.tcpopt.servicenode.flow;
