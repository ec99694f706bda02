/**
 * External mode: how a flow accepted by a controller physically reaches a service node on another
 * machine. The controller accepts the client connection, decides it (policy + distribution), and
 * opens a TCP connection to the chosen node's handoff port, writing a PROXY protocol v2 header that
 * carries the client's address and the original destination before relaying the bytes. Flows that
 * are not optimized (or whose node cannot be reached) go straight to their destination: fail open.
 * See {@code docs/controller.md}.
 */
package io.tcpopt.controller.handoff;
