package io.tcpopt.cli.operator;

import io.tcpopt.cli.CliException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** A controller held in memory, for testing how commands print. */
final class FakeController implements ControllerClient {
  final List<Views.PolicyVersion> versions = new ArrayList<>();
  /** Active flows a test adds after the three standard ones. */
  final List<Views.Flow> moreFlows = new ArrayList<>();
  boolean closed;

  @Override
  public Views.Node drain(String node, boolean undrain) {
    return nodes().stream().filter(n -> n.name().equals(node)).findFirst()
        .map(n -> new Views.Node(n.name(), n.site(), n.roles(), n.address(), n.state(), n.loadPercent(), n.activeFlows(), n.flowCapacity(),
            n.lastHeartbeat(), !undrain))
        .orElseThrow(() -> new io.tcpopt.cli.CliException("no node named \"" + node + "\" is registered (see tcpopt nodes)"));
  }

  FakeController() {
    versions.add(new Views.PolicyVersion(1, "first", "data-policy:\n  name: first\n  default-action: pass-through\n", Instant.EPOCH));
  }

  ControllerConnector connector() {
    return target -> this;
  }

  @Override
  public Views.ClusterStatus status() {
    return new Views.ClusterStatus("DEGRADED", "1 of 2 sessions down", "127.0.0.1:7700", current().version(), current().name(),
        List.of("branch", "dc"),
        List.of(new Views.Group("SNG-APPQOE", "branch", List.of(new Views.Member("branch-1", true, 12.5, false)))),
        List.of(new Views.Session("branch-1", "dc-1", "dc", 3, 4, 1500, 42, 7, "bbr", 0, 0, 0, 0, 1, true)),
        5, 10000, List.of(new Views.NodeFlows("branch-1", "branch", 5, 10000)));
  }

  @Override
  public List<Views.Node> nodes() {
    return List.of(
        new Views.Node("branch-1", "branch", List.of("controller", "service-node"), "127.0.0.1:7800", "HEALTHY", 12.5, 5, 10000, Instant.now(), false),
        new Views.Node("dc-1", "dc", List.of("service-node"), "127.0.0.1:7801", "HEALTHY", 0, 0, 10000, null, false));
  }

  @Override
  public List<Views.Flow> flows(boolean closed) {
    if (closed) {
      return List.of(new Views.Flow("f-3", 10, "198.18.1.2:40000", "198.19.1.2:22", "branch", "branch-1", "", "PASS_THROUGH",
          10, 20, 0, 0, Instant.EPOCH, Duration.ofSeconds(3), "no policy sequence matched", "", "", ""));
    }
    List<Views.Flow> active = new ArrayList<>(List.of(
        new Views.Flow("f-1", 10, "198.18.1.2:40001", "198.19.1.2:5201", "branch", "branch-1", "TCP-OPT", "OPTIMIZED",
            64L << 20, 1024, 2.5e8, 200_000, Instant.EPOCH, Duration.ofSeconds(2), null, "dc-1", "", ""),
        new Views.Flow("f-2", 10, "198.18.1.3:40002", "198.19.1.9:80", "branch", "branch-2", "TCP-OPT", "OPTIMIZED",
            10, 10, 0, 200_000, Instant.EPOCH, Duration.ofSeconds(1), null, "dc-1",
            "3 requests, 2 reused, last on #12 198.19.1.1:40112->198.19.1.9:80", "")));
    active.addAll(moreFlows);
    return active;
  }

  @Override
  public Views.PolicyVersion applyPolicy(String yaml, String sourceName, long expectedActive) {
    if (expectedActive != 0 && expectedActive != current().version()) {
      throw new CliException("active policy is v" + current().version() + ", not v" + expectedActive + " as expected; not applied");
    }
    Views.PolicyVersion v = new Views.PolicyVersion(current().version() + 1, "applied", yaml, Instant.EPOCH);
    versions.add(v);
    return v;
  }

  @Override
  public List<Views.PolicyError> validatePolicy(String yaml, String sourceName) {
    return yaml.contains("bogus") ? List.of(new Views.PolicyError("data-policy.bogus", "unknown setting")) : List.of();
  }

  @Override
  public Views.PolicyVersion policy(long version) {
    if (version <= 0) {
      return current();
    }
    return versions.stream().filter(v -> v.version() == version).findFirst()
        .orElseThrow(() -> new CliException("no policy version " + version));
  }

  @Override
  public String diff(String candidateYaml) {
    if (candidateYaml.equals(current().yaml())) {
      return "";
    }
    StringBuilder diff = new StringBuilder("--- active\n+++ candidate\n");
    current().yaml().lines().forEach(l -> diff.append('-').append(l).append('\n'));
    candidateYaml.lines().forEach(l -> diff.append('+').append(l).append('\n'));
    return diff.toString();
  }

  @Override
  public Views.PolicyVersion rollback(long version, long expectedActive) {
    Views.PolicyVersion old = policy(version);
    return applyPolicy(old.yaml(), "rollback", expectedActive);
  }

  private Views.PolicyVersion current() {
    return versions.get(versions.size() - 1);
  }

  @Override
  public void close() {
    closed = true;
  }
}
