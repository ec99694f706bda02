/**
 * Where flows enter the node: explicit listeners (listen address → target server, port-forward
 * style, no root) and the transparent listener (IP_TRANSPARENT; the original destination is the
 * accepted socket's local address, steered there by the rules of the {@code transparent} package).
 */
package io.tcpopt.servicenode.intercept;
