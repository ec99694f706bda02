/**
 * The node's TCP legs (client and server sockets of a flow): the {@code lan} options every leg
 * gets ({@link io.tcpopt.servicenode.leg.LegOptions}) and the per-leg TCP profile of a policy
 * verdict ({@link io.tcpopt.servicenode.leg.LegTuning}), applied by the flow router before a leg
 * is bridged.
 */
package io.tcpopt.servicenode.leg;
