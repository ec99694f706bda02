/**
 * The per-node Prometheus scrape endpoint ({@code metrics.listen}): one micrometer registry per
 * node, handed to the service node and the controller, with the JVM binders, served by the bounded
 * HTTP server of {@code io.tcpopt.common.http}.
 */
package io.tcpopt.cli.metrics;
