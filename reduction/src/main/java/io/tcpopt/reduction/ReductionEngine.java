package io.tcpopt.reduction;

import io.tcpopt.reduction.store.ChunkStore;
import io.tcpopt.reduction.store.Fingerprint;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A node's data-reduction engine: its chunk cache and one {@link PeerReduction} per peer node.
 * Created once per service node (when any policy may ask for data reduction) and closed at stop.
 * The cache's evictions and epoch changes are passed on to every peer as control messages.
 * Thread-safe.
 */
public final class ReductionEngine implements AutoCloseable {
  private final ReductionSettings settings;
  private final ChunkStore store;
  private final Map<String, PeerReduction> peers = new ConcurrentHashMap<>();

  private ReductionEngine(ReductionSettings settings) {
    this.settings = settings;
    this.store = ChunkStore.open(settings.store());
    store.addListener(new ChunkStore.Listener() {
      @Override
      public void evicted(List<Fingerprint> fingerprints) {
        for (PeerReduction p : peers.values()) {
          p.evicted(fingerprints);
        }
      }

      @Override
      public void epochChanged(long epoch) {
        for (PeerReduction p : peers.values()) {
          p.ownEpochChanged();
        }
      }
    });
  }

  /** Opens the engine and its cache (with a disk tier, what the directory holds is checked and kept). */
  public static ReductionEngine open(ReductionSettings settings) {
    return new ReductionEngine(settings);
  }

  /** The state kept for peer node {@code name} (its certificate name), created on first use. */
  public PeerReduction peer(String name) {
    return peers.computeIfAbsent(name, n -> new PeerReduction(this, n));
  }

  /** Forgets a peer that is no longer configured. */
  public void removePeer(String name) {
    peers.remove(name);
  }

  public ReductionSettings settings() {
    return settings;
  }

  public ChunkStore store() {
    return store;
  }

  /** This node's cache epoch (for HELLO or the EPOCH message). */
  public long epoch() {
    return store.epoch();
  }

  @Override
  public void close() {
    store.close();
  }
}
