/**
 * The one relay of the data path. A {@link io.tcpopt.common.relay.LegBridge} joins a TCP leg to an
 * {@link io.tcpopt.common.relay.Upstream} and owns FIN, RST, the idle timeout, early bytes and
 * backpressure; the upstream is a stream of the inter-node session (in the service node) or a
 * direct socket ({@link io.tcpopt.common.relay.DirectUpstream}: pass-through flows, the
 * controller's handoff). The bridge reports to a {@link io.tcpopt.common.relay.FlowRecorder}, so
 * it needs neither the service node's flow table nor to know which side of a flow it serves.
 * See {@code docs/architecture.md} ("The data path") for the threading rules.
 */
package io.tcpopt.common.relay;
