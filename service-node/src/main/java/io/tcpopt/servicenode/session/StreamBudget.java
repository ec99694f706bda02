package io.tcpopt.servicenode.session;

import java.util.function.LongConsumer;
import java.util.function.LongPredicate;
import java.util.function.LongUnaryOperator;

/**
 * Where a stream reserves the memory its windows may make the node hold beyond their start (the
 * node's buffer budget, through the flow's admission claim): the growth of its receive window, the
 * start credit it grants a new stream's sender, the send queue as the peer's window grows. Called on
 * the stream's event loop.
 */
public interface StreamBudget {
  /**
   * No limit beyond the configured maximum window, and no start credit (streams that no admission
   * claimed: tests, tools).
   */
  StreamBudget UNLIMITED = bytes -> true;

  /** Reserves {@code bytes} more for the stream; false (nothing reserved) when they do not fit. */
  boolean reserve(long bytes);

  /** Gives back {@code bytes} reserved before (credit the peer returned unused, a send queue that shrank). */
  default void release(long bytes) {}

  /**
   * The credit to grant a new stream's sender at once, beyond the initial window: at most {@code
   * most}, sized from what the budget has free (not reserved yet). 0 without a budget to size it from.
   */
  default long startCredit(long most) {
    return 0;
  }

  /** Reserves {@code bytes} of start credit ({@link #startCredit}); false (nothing reserved) when they do not fit. */
  default boolean reserveStart(long bytes) {
    return reserve(bytes);
  }

  /**
   * A budget made of its operations (an admission claim's {@code grow}, {@code grantStart}, {@code
   * shrink} and {@code startCredit}).
   */
  static StreamBudget of(LongPredicate reserve, LongPredicate reserveStart, LongConsumer release, LongUnaryOperator startCredit) {
    return new StreamBudget() {
      @Override
      public boolean reserve(long bytes) {
        return reserve.test(bytes);
      }

      @Override
      public boolean reserveStart(long bytes) {
        return reserveStart.test(bytes);
      }

      @Override
      public void release(long bytes) {
        release.accept(bytes);
      }

      @Override
      public long startCredit(long most) {
        return startCredit.applyAsLong(most);
      }
    };
  }
}
