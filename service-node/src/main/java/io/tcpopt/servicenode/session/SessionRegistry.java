package io.tcpopt.servicenode.session;

import io.netty.channel.EventLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The WAN connections that are up, dialled or accepted, grouped by the peer's site as admitted
 * (configured or registered, never the HELLO's claim). Thread-safe: read by intercepting event loops, written by the connections' loops.
 */
public final class SessionRegistry implements SessionListener {
  private final Map<String, List<StreamMultiplexer>> bySite = new ConcurrentHashMap<>();
  private final SessionListener next;

  /** {@code next} is told too (metrics, logs); may be null. */
  public SessionRegistry(SessionListener next) {
    this.next = next;
  }

  @Override
  public void sessionUp(StreamMultiplexer connection) {
    bySite.computeIfAbsent(connection.peerSite(), s -> new CopyOnWriteArrayList<>()).add(connection);
    if (next != null) {
      next.sessionUp(connection);
    }
  }

  @Override
  public void sessionDown(StreamMultiplexer connection, String reason) {
    List<StreamMultiplexer> list = bySite.get(connection.peerSite());
    if (list != null) {
      list.remove(connection);
    }
    if (next != null) {
      next.sessionDown(connection, reason);
    }
  }

  @Override
  public void sessionRetiring(StreamMultiplexer connection) {
    if (next != null) {
      next.sessionRetiring(connection);
    }
  }

  /**
   * A connection to {@code site} able to open a stream: not an express one while another can (its
   * streams' first bytes and ends would go on it), then one on {@code preferred} (so the flow's legs
   * share one event loop), then the least loaded; null when none is up.
   */
  public StreamMultiplexer pick(String site, EventLoop preferred) {
    List<StreamMultiplexer> list = bySite.get(site);
    if (list == null) {
      return null;
    }
    StreamMultiplexer best = null;
    int bestRank = Integer.MAX_VALUE;
    for (StreamMultiplexer m : list) {
      if (!m.canOpen()) {
        continue;
      }
      int rank = rank(m, preferred);
      if (rank < bestRank || (rank == bestRank && m.activeStreams() < best.activeStreams())) {
        best = m;
        bestRank = rank;
      }
    }
    return best;
  }

  /** Lower picks first: a connection that is not express before one that is, then one on {@code preferred}. */
  private static int rank(StreamMultiplexer m, EventLoop preferred) {
    return (m.isExpress() ? 2 : 0) + (m.channel().eventLoop() == preferred ? 0 : 1);
  }

  /** Every connection that is up. */
  public List<StreamMultiplexer> all() {
    List<StreamMultiplexer> out = new ArrayList<>();
    for (List<StreamMultiplexer> list : bySite.values()) {
      out.addAll(list);
    }
    return out;
  }
}
