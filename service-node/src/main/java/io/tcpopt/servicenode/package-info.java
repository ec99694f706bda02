/**
 * The service node: the data plane of tcpopt. {@link io.tcpopt.servicenode.ServiceNode} intercepts
 * client flows, asks a {@link io.tcpopt.servicenode.FlowDecider} what to do with each, and carries
 * optimized flows as streams over warm inter-node sessions to a peer node that connects to the
 * server; everything else is passed through (fail open) or dropped, and recorded.
 */
package io.tcpopt.servicenode;
