/**
 * Wire format v1 of the inter-node session: the frame types, the codec that turns bytes into frames
 * and back, and the HELLO handshake fields. See {@code docs/wire-format.md} for the specification.
 * The decoder never allocates from a length it has not checked against the negotiated maximum.
 */
package io.tcpopt.servicenode.wire;
