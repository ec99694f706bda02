/**
 * Node memory after a burst of flows: {@link io.tcpopt.servicenode.memory.IdleMemoryReturn} gives
 * back the heap and C heap the burst made the JVM grow, once the burst is over.
 */
package io.tcpopt.servicenode.memory;
