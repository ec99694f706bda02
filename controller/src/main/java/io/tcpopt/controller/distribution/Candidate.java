package io.tcpopt.controller.distribution;

/**
 * A healthy service node that may take a flow.
 *
 * @param name node name (also the rendezvous hashing identity)
 * @param capacity maximum concurrent flows; the hashing weight
 * @param activeFlows flows it currently carries
 */
public record Candidate(String name, long capacity, long activeFlows) {}
