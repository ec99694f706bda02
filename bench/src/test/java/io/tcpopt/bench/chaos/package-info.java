/**
 * The chaos suite of issue 8: failures inflicted on live nodes started from the packaged jar in
 * network namespaces (root only; each test aborts with its reason elsewhere), each scenario
 * asserting its outcome. {@code NodeKillChaosTest} is scenario 1 (SIGKILL of the branch node
 * mid-transfer), {@code ControlPlaneChaosTest} scenario 10 (non-members, node certificates,
 * hostile YAML, a 2|1 split and heal, a rollback racing an apply). Later scenarios join this
 * package and reuse {@link io.tcpopt.bench.TestbedRun} and its probes.
 */
package io.tcpopt.bench.chaos;
