/**
 * The per-node Prometheus scrape endpoint ({@code metrics.listen}): one micrometer registry per
 * node, handed to the service node and the controller, with the JVM binders, served over the JDK's
 * small HTTP server.
 */
package io.tcpopt.cli.metrics;
