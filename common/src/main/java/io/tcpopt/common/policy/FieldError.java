package io.tcpopt.common.policy;

import java.util.Objects;

/**
 * One problem in a policy document: the field path (dotted, list indexes in brackets, e.g. {@code
 * data-policy.sequences[1].match.destination-prefix-list}) and why it was refused.
 */
public record FieldError(String path, String reason) {
  public FieldError {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(reason, "reason");
  }

  @Override
  public String toString() {
    return path.isEmpty() ? reason : path + ": " + reason;
  }
}
