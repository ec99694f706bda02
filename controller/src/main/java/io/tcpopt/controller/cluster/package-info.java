/**
 * The embedded Hazelcast member every controller runs: explicit TCP-IP member list (multicast and
 * auto-detection off), configurable timing, and the split-brain protection that makes a minority
 * side refuse policy writes.
 */
package io.tcpopt.controller.cluster;
