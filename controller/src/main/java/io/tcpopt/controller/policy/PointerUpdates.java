package io.tcpopt.controller.policy;

import com.hazelcast.map.EntryProcessor;
import java.util.Map;

/**
 * Entry processors run on the partition owner of the pointer entry, so each is atomic. They travel
 * between members as Compact data ({@link PolicySerializers}); the {@code serialVersionUID}s only
 * satisfy {@code EntryProcessor extends Serializable}.
 */
final class PointerUpdates {
  private PointerUpdates() {}

  /** Hands out the next version number. */
  static final class Reserve implements EntryProcessor<String, PolicyPointer, Long> {
    private static final long serialVersionUID = 1L;

    @Override
    public Long process(Map.Entry<String, PolicyPointer> entry) {
      PolicyPointer p = entry.getValue() == null ? PolicyPointer.EMPTY : entry.getValue();
      long next = p.lastVersion() + 1;
      entry.setValue(new PolicyPointer(next, p.activeVersion()));
      return next;
    }
  }

  /**
   * Makes {@code version} active if the active version is still {@code expectedActive} (or
   * unconditionally when {@code expectedActive < 0}); returns the active version afterwards.
   */
  static final class Activate implements EntryProcessor<String, PolicyPointer, Long> {
    private static final long serialVersionUID = 1L;
    private final long version;
    private final long expectedActive;

    Activate(long version, long expectedActive) {
      this.version = version;
      this.expectedActive = expectedActive;
    }

    long version() {
      return version;
    }

    long expectedActive() {
      return expectedActive;
    }

    @Override
    public Long process(Map.Entry<String, PolicyPointer> entry) {
      PolicyPointer p = entry.getValue() == null ? PolicyPointer.EMPTY : entry.getValue();
      if (expectedActive >= 0 && p.activeVersion() != expectedActive) {
        return p.activeVersion();
      }
      entry.setValue(new PolicyPointer(Math.max(p.lastVersion(), version), version));
      return version;
    }
  }
}
