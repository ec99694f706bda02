package io.tcpopt.controller.auth;

import java.util.Objects;

/**
 * The authenticated party of one request.
 *
 * @param role what it may do
 * @param name the operator's or node's name from its certificate, {@code token} for the bearer
 *     token, {@code anonymous} on an open API
 */
public record Caller(Role role, String name) {
  /** The two roles; anything a node may not do is for operators. */
  public enum Role {
    /** Changes and reads policy and status (token, operator certificate, or an open API). */
    OPERATOR,
    /** Registers, heartbeats and watches as the node its certificate names, nothing else. */
    NODE
  }

  public Caller {
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(name, "name");
  }

  public boolean isOperator() {
    return role == Role.OPERATOR;
  }

  /** For logs and refusals: {@code operator alice}, {@code node branch-1}. */
  @Override
  public String toString() {
    return role.name().toLowerCase() + " " + name;
  }
}
