package io.tcpopt.reduction;

/**
 * A segment or control message that breaks docs/data-reduction.md, or a chunk the peer can no
 * longer supply. The transport resets the stream (or, for a control message, treats the peer
 * session as broken): never corrupt or truncated output.
 */
public final class ReductionException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ReductionException(String message) {
    super(message);
  }

  public ReductionException(String message, Throwable cause) {
    super(message, cause);
  }
}
