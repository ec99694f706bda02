/**
 * Data reduction on the WAN leg (issue 11): per peer node, {@link
 * io.tcpopt.reduction.StreamEncoder} turns a stream's bytes into encoded segments (literal bytes,
 * compressed when it pays, and references to chunks the peer's cache holds) and {@link
 * io.tcpopt.reduction.StreamDecoder} turns them back, byte-exact, asking the peer for any chunk it
 * cannot resolve. {@link io.tcpopt.reduction.PeerReduction} keeps the two caches in agreement
 * with control messages (EPOCH, NACK, RESUPPLY, EVICTED). The transport carries segments and
 * control messages as frame payloads; the formats are in docs/data-reduction.md.
 */
package io.tcpopt.reduction;
