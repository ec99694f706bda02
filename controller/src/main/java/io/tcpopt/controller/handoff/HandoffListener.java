package io.tcpopt.controller.handoff;

import java.net.InetSocketAddress;

/**
 * One explicit interception listener of a controller in external mode: connections accepted on
 * {@code listen} are flows to {@code target} (port-forward style, no root needed).
 */
public record HandoffListener(InetSocketAddress listen, InetSocketAddress target) {}
