/**
 * Admission: the node-wide limits a new flow is checked against before the node holds it — the
 * buffer budget (every byte a flow may make the node buffer is reserved from it), {@code
 * flows.max-active} over every flow the node holds, the per-client-address limit, and drain.
 * {@code FlowRouter.refusal()} is the one caller; the limits' sizes come from {@code
 * ServiceNodeConfig}.
 */
package io.tcpopt.servicenode.admission;
