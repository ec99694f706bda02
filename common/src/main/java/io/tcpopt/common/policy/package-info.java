/**
 * The data policy: its model ({@link io.tcpopt.common.policy.PolicyDocument}, parsed from YAML and
 * validated completely, every problem a {@link io.tcpopt.common.policy.FieldError}) and its compiled
 * classifier ({@link io.tcpopt.common.policy.CompiledPolicy}), which maps a new flow to a {@link
 * io.tcpopt.common.policy.Verdict}: optimize through a service-node group with per-leg TCP
 * profiles, pass through, or drop. Plain Java, no cluster or RPC types: the controller stores the
 * YAML text and every node compiles it.
 */
package io.tcpopt.common.policy;
