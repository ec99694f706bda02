/**
 * The controller role: {@link io.tcpopt.controller.Controller} wires the embedded cluster member,
 * the policy store, membership, flow distribution and the gRPC API together from a {@link
 * io.tcpopt.controller.ControllerConfig}.
 */
package io.tcpopt.controller;
