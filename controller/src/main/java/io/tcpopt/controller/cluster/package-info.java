/**
 * The embedded Hazelcast member every controller runs: explicit TCP-IP member list (multicast and
 * auto-detection off), configurable timing, the split-brain protection that makes a minority side
 * refuse policy writes, and its exposure kept small: one bind address, the member protocol only,
 * an nftables allow-list of the members, Compact data only (no Java deserialization of arbitrary
 * classes).
 */
package io.tcpopt.controller.cluster;
