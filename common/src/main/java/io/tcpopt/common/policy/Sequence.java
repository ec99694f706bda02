package io.tcpopt.common.policy;

import java.util.Objects;

/** One numbered entry of the data policy: if {@link #match} holds, {@link #action} applies. */
public record Sequence(int seq, Match match, SequenceAction action) {
  public Sequence {
    if (seq <= 0) {
      throw new IllegalArgumentException("sequence numbers start at 1, got " + seq);
    }
    Objects.requireNonNull(match, "match");
    Objects.requireNonNull(action, "action");
  }
}
