/**
 * Registered service nodes and controllers with their site, group, addresses, capacity, load and
 * last heartbeat, held in a Hazelcast map and mirrored locally so that flow decisions never touch
 * the cluster. A node whose heartbeats stop is unhealthy after the expiry and gets no new flows.
 */
package io.tcpopt.controller.membership;
