/**
 * Smoke test of the WAN testbed and benchmark: drives the scripts in {@code bench/testbed/}
 * (namespaces, the userspace link emulator, iperf3 load) from JUnit, so that the suite shows
 * tcpopt beating direct TCP on a lossy long link wherever root and namespaces are available.
 */
package io.tcpopt.bench;
