/**
 * The TCP legs of a flow and what joins them: {@link io.tcpopt.servicenode.proxy.StreamBridge}
 * joins a local leg (the accepted client, or the server connected at the far node) to a stream of
 * a WAN connection; {@link io.tcpopt.servicenode.proxy.PassThroughSplice} joins two local legs on
 * one event loop for fail-open. Half-close (FIN) and reset (RST) are propagated faithfully.
 */
package io.tcpopt.servicenode.proxy;
