package io.tcpopt.controller.policy;

/** A policy-store operation that could not be carried out; the message is one operator line. */
public final class PolicyStoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Why, so that the API can map it to a status code. */
  public enum Kind {
    /** This controller is on the minority side of a split cluster (or alone): writes refused. */
    NO_QUORUM,
    /** The requested version does not exist. */
    NOT_FOUND,
    /** The active version changed since the caller read it. */
    CONFLICT,
    /** The cluster could not be reached or failed. */
    UNAVAILABLE
  }

  private final Kind kind;

  public PolicyStoreException(Kind kind, String message, Throwable cause) {
    super(message, cause);
    this.kind = kind;
  }

  public Kind kind() {
    return kind;
  }
}
