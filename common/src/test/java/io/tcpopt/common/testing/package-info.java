/**
 * Test support shared by every module (through common's test-jar): the Netty leak guard, a JUnit 5
 * extension registered automatically that fails a test or test class on any Netty {@code LEAK:}.
 */
package io.tcpopt.common.testing;
