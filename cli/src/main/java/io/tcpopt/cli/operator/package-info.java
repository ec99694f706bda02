/**
 * Operator commands against a controller: {@code status}, {@code flows}, {@code nodes} and {@code
 * policy}. They talk to a {@link io.tcpopt.cli.operator.ControllerClient}, whose gRPC
 * implementation maps the controller API onto the small view records printed here.
 */
package io.tcpopt.cli.operator;
