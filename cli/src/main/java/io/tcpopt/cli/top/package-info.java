/**
 * {@code tcpopt top}: a live terminal view of one controller, refreshing like {@code top}: peers
 * with RTT, cwnd and throughput, the busiest flows, and the policy version. Plain ANSI escapes and
 * {@code stty} for raw keyboard input, so it works in any terminal and over SSH; {@code --batch}
 * prints plain frames for scripts and pipes.
 */
package io.tcpopt.cli.top;
