/**
 * {@code tcpopt demo}: a whole branch/DC deployment in one JVM on loopback — generated
 * certificates, a controller, two service nodes, a sample policy and a checked sample transfer.
 */
package io.tcpopt.cli.demo;
