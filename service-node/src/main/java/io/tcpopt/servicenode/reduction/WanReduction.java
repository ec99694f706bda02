package io.tcpopt.servicenode.reduction;

import io.tcpopt.reduction.PeerReduction;
import io.tcpopt.reduction.ReductionEngine;
import io.tcpopt.reduction.ReductionException;
import io.tcpopt.reduction.ReductionSettings;
import io.tcpopt.servicenode.session.ReductionLink;
import io.tcpopt.servicenode.session.StreamMultiplexer;
import io.tcpopt.servicenode.wire.HelloFrame;
import io.tcpopt.servicenode.wire.WireCodes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's data reduction on its WAN sessions: one {@link ReductionEngine} (the chunk cache) and,
 * per peer node whose HELLO announces a cache, its {@link PeerReduction} and the connections up to
 * it. The peer's cache epoch and size come from each HELLO (a new epoch: everything known about the
 * peer's cache is forgotten); control messages leave on any connection up to the peer, and are
 * re-announced (epoch, open requests) whenever a connection comes up. Thread-safe.
 */
public final class WanReduction implements ReductionLink, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(WanReduction.class);

  private final ReductionEngine engine;
  private final Map<String, PeerLink> peers = new ConcurrentHashMap<>();

  /** One peer: its state and the connections its control messages may take. */
  private static final class PeerLink {
    final PeerReduction state;
    final List<StreamMultiplexer> up = new CopyOnWriteArrayList<>();
    final AtomicBoolean scheduled = new AtomicBoolean();

    PeerLink(PeerReduction state) {
      this.state = state;
      state.onControlPending(this::controlPending);
    }

    /** Something to send: once, on the loop of a connection up to the peer (none up: the next one re-announces). */
    void controlPending() {
      for (StreamMultiplexer c : up) {
        if (c.isUp()) {
          if (scheduled.compareAndSet(false, true)) {
            c.channel().eventLoop().execute(() -> sendControl(c));
          }
          return;
        }
      }
    }

    void sendControl(StreamMultiplexer c) {
      scheduled.set(false);
      if (!c.isUp()) {
        controlPending();
        return;
      }
      int max = c.peerHello().maxFrameSize();
      for (byte[] m; (m = state.pollControl(max)) != null; ) {
        c.sendReductionControl(m);
      }
    }
  }

  private WanReduction(ReductionEngine engine) {
    this.engine = engine;
  }

  /** Opens the node's chunk cache (a disk tier is checked and kept). */
  public static WanReduction open(ReductionSettings settings) {
    return new WanReduction(ReductionEngine.open(settings));
  }

  public ReductionEngine engine() {
    return engine;
  }

  @Override
  public long cacheEpoch() {
    return engine.epoch();
  }

  @Override
  public long cacheCapacity() {
    return engine.store().capacityBytes();
  }

  @Override
  public void sessionUp(StreamMultiplexer connection) {
    HelloFrame hello = connection.peerHello();
    if (hello.cacheCapacity() == 0) {
      return; // the peer has no cache: its streams cross plain
    }
    PeerLink link = peers.computeIfAbsent(hello.name(), n -> new PeerLink(engine.peer(n)));
    link.state.peerEpoch(hello.cacheEpoch(), hello.cacheCapacity());
    link.up.add(connection);
    link.state.sessionStarted();
  }

  @Override
  public void sessionDown(StreamMultiplexer connection) {
    HelloFrame hello = connection.peerHello();
    PeerLink link = hello == null ? null : peers.get(hello.name());
    if (link != null) {
      link.up.remove(connection);
    }
  }

  @Override
  public void onControl(StreamMultiplexer connection, byte[] message) {
    PeerLink link = peers.get(connection.peerHello().name());
    if (link == null) {
      connection.connectionError(WireCodes.GOAWAY_PROTOCOL_ERROR, "REDUCTION frame from a peer that announced no cache");
      return;
    }
    try {
      link.state.onControl(message);
    } catch (ReductionException e) {
      log.warn("peer {} sent a malformed data-reduction control message: {}", connection.peerName(), e.getMessage());
      connection.connectionError(WireCodes.GOAWAY_PROTOCOL_ERROR, "malformed REDUCTION frame: " + e.getMessage());
    }
  }

  @Override
  public PeerReduction peer(StreamMultiplexer connection) {
    HelloFrame hello = connection.peerHello();
    if (hello == null || hello.cacheCapacity() == 0) {
      return null;
    }
    PeerLink link = peers.get(hello.name());
    return link == null ? null : link.state;
  }

  /** The peers this node exchanged data reduction with, by name. */
  public List<PeerReduction> peers() {
    List<PeerReduction> out = new ArrayList<>();
    for (PeerLink l : peers.values()) {
      out.add(l.state);
    }
    return out;
  }

  /** Per peer this node exchanged data reduction with: its figures (and the shared cache's). */
  public List<PeerReductionFigures> figures() {
    io.tcpopt.reduction.store.ChunkStore.Stats cache = engine.store().stats();
    long cacheBytes = cache.memoryBytes() + cache.diskBytes();
    List<PeerReductionFigures> out = new ArrayList<>();
    for (PeerLink l : peers.values()) {
      out.add(PeerReductionFigures.of(l.state.name(), l.state.stats().snapshot(), cacheBytes, engine.store().capacityBytes()));
    }
    return out;
  }

  @Override
  public void close() {
    engine.close();
  }
}
