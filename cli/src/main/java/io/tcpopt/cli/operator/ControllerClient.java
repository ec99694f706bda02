package io.tcpopt.cli.operator;

import java.util.List;

/**
 * What the operator commands need from a controller. Every method throws {@link
 * io.tcpopt.cli.CliException} with a one-line reason on failure (unreachable controller, refused
 * credentials, invalid policy).
 */
public interface ControllerClient extends AutoCloseable {
  Views.ClusterStatus status();

  List<Views.Node> nodes();

  List<Views.Flow> flows(boolean closed);

  /**
   * Orders a drain of {@code node} (or its end, {@code undrain}); returns the node as of its last
   * heartbeat (its {@code draining} turns true once the order reached it).
   */
  Views.Node drain(String node, boolean undrain);

  /** Validates and activates a policy unconditionally; returns the new active version. */
  default Views.PolicyVersion applyPolicy(String yaml, String sourceName) {
    return applyPolicy(yaml, sourceName, 0);
  }

  /**
   * Validates and activates a policy if {@code expectedActive} is still the active version (0 =
   * unconditionally); a lost race fails with the controller's reason. Returns the new active version.
   */
  Views.PolicyVersion applyPolicy(String yaml, String sourceName, long expectedActive);

  /** Validates a policy without activating it; an empty list means valid. */
  List<Views.PolicyError> validatePolicy(String yaml, String sourceName);

  /** The active policy ({@code version <= 0}) or a stored version. */
  Views.PolicyVersion policy(long version);

  /** A unified diff from the active policy to {@code candidateYaml}; empty when they are the same. */
  String diff(String candidateYaml);

  /** Re-activates a stored version as a new version, unconditionally; returns it. */
  default Views.PolicyVersion rollback(long version) {
    return rollback(version, 0);
  }

  /** As {@link #applyPolicy(String, String, long)}, re-activating stored version {@code version}. */
  Views.PolicyVersion rollback(long version, long expectedActive);

  @Override
  void close();
}
