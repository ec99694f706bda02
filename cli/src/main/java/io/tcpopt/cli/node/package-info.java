/**
 * {@code tcpopt run --config FILE}: reads the node configuration, starts the roles it lists
 * (controller, service node, both = integrated) and the metrics endpoint, and stops them all on
 * SIGINT/SIGTERM.
 */
package io.tcpopt.cli.node;
