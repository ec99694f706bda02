/**
 * The {@code tcpopt} launcher: the command line ({@link io.tcpopt.cli.Main}), its exit codes and
 * its one-line error reporting. The commands themselves live in feature packages: {@code operator}
 * (commands against a controller), {@code node} ({@code run --config}), {@code demo}, {@code
 * metrics} (the Prometheus endpoint) and {@code output} (tables and JSON).
 */
package io.tcpopt.cli;
