package io.tcpopt.reduction;

import io.tcpopt.reduction.chunk.ChunkerSettings;
import io.tcpopt.reduction.store.FingerprintFunction;
import io.tcpopt.reduction.store.StoreSettings;
import java.util.Objects;

/**
 * Settings of a node's {@link ReductionEngine}.
 *
 * @param store the chunk cache sizes (node config {@code service-node.data-reduction})
 * @param chunker chunk size bounds (default {@link ChunkerSettings#DEFAULT})
 * @param fingerprints names chunks (default {@link FingerprintFunction#SHA256_128}; tests inject
 *     weak ones to force collisions)
 * @param maxKnownChunks bound of the per-peer record of which chunks the peer holds (default 1 Mi
 *     entries, about 100 MB at worst); it is also capped at the peer's cache size / 1 KiB
 */
public record ReductionSettings(StoreSettings store, ChunkerSettings chunker, FingerprintFunction fingerprints,
    int maxKnownChunks) {
  public static final int DEFAULT_MAX_KNOWN = 1 << 20;

  public ReductionSettings {
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(chunker, "chunker");
    Objects.requireNonNull(fingerprints, "fingerprints");
    if (maxKnownChunks < 16) {
      throw new IllegalArgumentException("maxKnownChunks must be at least 16");
    }
  }

  public static ReductionSettings of(StoreSettings store) {
    return new ReductionSettings(store, ChunkerSettings.DEFAULT, FingerprintFunction.SHA256_128, DEFAULT_MAX_KNOWN);
  }

  public ReductionSettings withFingerprints(FingerprintFunction f) {
    return new ReductionSettings(store, chunker, f, maxKnownChunks);
  }

  public ReductionSettings withChunker(ChunkerSettings c) {
    return new ReductionSettings(store, c, fingerprints, maxKnownChunks);
  }

  public ReductionSettings withMaxKnownChunks(int n) {
    return new ReductionSettings(store, chunker, fingerprints, n);
  }
}
