/**
 * Data reduction on the WAN leg, wired into the inter-node session: the node's {@link
 * io.tcpopt.reduction.ReductionEngine} (chunk cache, per-peer state) behind the session's {@link
 * io.tcpopt.servicenode.session.ReductionLink} (HELLO cache fields, REDUCTION control frames), and
 * its figures per peer. The per-stream transform sits in the session's {@code WanStreamUpstream}.
 */
package io.tcpopt.servicenode.reduction;
