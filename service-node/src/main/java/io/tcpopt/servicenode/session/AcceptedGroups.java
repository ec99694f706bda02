package io.tcpopt.servicenode.session;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The groups of the WAN connections a node accepted, by the peer's name and the session value of
 * their HELLO (wire format 2, docs/wire-format.md section 5.3): connections of one peer's pool that
 * the node accepted on any of its listeners and event loops meet in one {@link ConnectionGroup}. A
 * group is forgotten once its last member leaves. One per node ({@link
 * SessionSettings#acceptedGroups}), so that nodes sharing a process (tests) never meet; thread-safe.
 */
public final class AcceptedGroups {
  record Key(String peer, long session) {}

  private final Map<Key, ConnectionGroup> groups = new ConcurrentHashMap<>();

  AcceptedGroups() {}

  /**
   * Joins {@code connection}, accepted from pool {@code session} of peer {@code peer} as number
   * {@code number}, to its group: returns the group. A member of the same number (a faulty peer's)
   * is replaced.
   */
  ConnectionGroup join(String peer, long session, int number, StreamMultiplexer connection) {
    return groups.compute(new Key(peer, session), (k, g) -> {
      ConnectionGroup group = g == null ? new ConnectionGroup(this, k) : g;
      group.join(number, connection);
      return group;
    });
  }

  /** {@code connection}, number {@code number} of the group known by {@code key}, is gone. */
  void leave(Key key, int number, StreamMultiplexer connection) {
    groups.computeIfPresent(key, (k, g) -> {
      g.removeMember(number, connection);
      return g.isEmpty() ? null : g;
    });
  }

  /** How many groups the node holds (tests). */
  int size() {
    return groups.size();
  }
}
