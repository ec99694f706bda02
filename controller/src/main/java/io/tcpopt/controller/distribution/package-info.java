/**
 * Turning a new flow into a decision: classify it with the active policy, then pick one healthy
 * service node of the selected group by weighted rendezvous hashing of the flow's 5-tuple, or pass
 * it through (with the reason) when the group is unhealthy or at 95% of its flow capacity.
 * Everything here reads local memory only and is safe to call from a Netty event loop.
 */
package io.tcpopt.controller.distribution;
