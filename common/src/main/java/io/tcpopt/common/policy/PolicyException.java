package io.tcpopt.common.policy;

import java.util.List;

/**
 * A policy document that failed validation, with every problem found (not just the first). The
 * message is the first problem as {@code path: reason}, plus {@code (and N more)}: one line for a
 * CLI, while an API can return all of {@link #errors()}.
 */
public final class PolicyException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final List<FieldError> errors;

  public PolicyException(List<FieldError> errors) {
    super(message(errors));
    this.errors = List.copyOf(errors);
  }

  public List<FieldError> errors() {
    return errors;
  }

  private static String message(List<FieldError> errors) {
    if (errors.isEmpty()) {
      throw new IllegalArgumentException("a PolicyException needs at least one error");
    }
    String first = errors.get(0).toString();
    return errors.size() == 1 ? first : first + " (and " + (errors.size() - 1) + " more)";
  }
}
