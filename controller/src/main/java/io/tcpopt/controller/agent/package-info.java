/**
 * The service-node side of the node service: an agent that registers a node with a controller,
 * streams heartbeats, and follows the policy and peer pushes of the watch stream, reconnecting with
 * backoff. It keeps the last policy it received, so the node never depends on a reachable controller.
 */
package io.tcpopt.controller.agent;
