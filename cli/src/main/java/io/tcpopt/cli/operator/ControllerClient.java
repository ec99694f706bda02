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

  /** Validates and activates a policy; returns the new active version. */
  Views.PolicyVersion applyPolicy(String yaml, String sourceName);

  /** Validates a policy without activating it; an empty list means valid. */
  List<Views.PolicyError> validatePolicy(String yaml, String sourceName);

  /** The active policy ({@code version <= 0}) or a stored version. */
  Views.PolicyVersion policy(long version);

  /** A unified diff from the active policy to {@code candidateYaml}; empty when they are the same. */
  String diff(String candidateYaml);

  /** Re-activates a stored version as a new version; returns it. */
  Views.PolicyVersion rollback(long version);

  @Override
  void close();
}
