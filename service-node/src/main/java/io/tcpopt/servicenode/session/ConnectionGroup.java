package io.tcpopt.servicenode.session;

import io.netty.channel.Channel;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The WAN connections between this node and one pool of a peer (wire format 2, docs/wire-format.md
 * section 5.3): the connections one dialler's pool instance made, each known by the number its
 * dialler gave it in its HELLO. A stream lives on one of them, its <em>home</em> (its OPEN,
 * WINDOW_UPDATEs, RST_STREAM and END_STREAM go there); its DATA may travel on any member, whichever
 * can send soonest ({@link #soonest}), and a DATA that arrives away from its home is handed to the
 * home ({@link #member}). When a member is lost, every other member resets the streams that sent
 * bytes on it that the peer has not acknowledged ({@link StreamMultiplexer#otherConnectionLost}).
 *
 * <p>A pool may have an <em>express</em> member (its number has {@link PooledConnection#EXPRESS}):
 * both ends send on it only the DATA of interactive streams ({@link StreamScheduler#nextInteractive}),
 * never bulk while another member is up, so its kernel queue stays empty and a 1 KB request never
 * waits behind the bulk's unsent bytes (issue 9, 9.3, testbed at 250 Mbit/s and 100 ms, two pairs
 * against main: echo p50 / p99 110.5 / 147.2–148.0 ms against 122.4–131.9 / 242.1–270.0, the bulk
 * beside it 236.5–237.1 Mbit/s against 227.1–230.8).
 *
 * <p>The dialling side's group is its {@link PeerSessionPool}'s; the accepting side finds the group
 * of a connection by the peer's name and the session value of its HELLO ({@link AcceptedGroups}).
 * Members run on different event loops: the group is thread-safe, and members act on each other
 * only by submitting work to the other's loop.
 */
final class ConnectionGroup {
  private final Map<Integer, StreamMultiplexer> members = new ConcurrentHashMap<>();
  /**
   * The members again, as an array replaced whole on every join and leave, for the loops run per frame
   * ({@link #soonest}, {@link #express}, {@link #writable}): iterating the map there made two
   * iterators per frame, 12.7% of the branch's sampled allocation in 9.3 (docs/benchmarks.md, gc9d).
   */
  private volatile StreamMultiplexer[] memberArray = new StreamMultiplexer[0];
  /** The node's accepted groups and this group's key among them; both null for a dialler's group. */
  private final AcceptedGroups accepted;
  private final AcceptedGroups.Key key;

  /** A dialler's group (its pool's). */
  ConnectionGroup() {
    this(null, null);
  }

  /** A group of accepted connections, known in {@code accepted} by {@code key}. */
  ConnectionGroup(AcceptedGroups accepted, AcceptedGroups.Key key) {
    this.accepted = accepted;
    this.key = key;
  }

  /**
   * {@code connection} is up as number {@code number}; a member of the same number is replaced, and
   * so is the express member by a newer one. A dialler keeps one express connection, so an older one
   * still here is one it lost that this end has not noticed yet, or a faulty peer's: left out of the
   * group, it carries no other stream's bytes (the streams living on it go on), and a peer that marks
   * every connection express still gets one express member and the bulk on the others.
   */
  synchronized void join(int number, StreamMultiplexer connection) {
    if (PooledConnection.isExpress(number)) {
      members.keySet().removeIf(n -> n != number && PooledConnection.isExpress(n));
    }
    members.put(number, connection);
    memberArray = members.values().toArray(new StreamMultiplexer[0]);
  }

  /** {@code connection} is gone; a group of accepted connections is forgotten once empty. */
  void leave(int number, StreamMultiplexer connection) {
    if (accepted != null) {
      accepted.leave(key, number, connection);
    }
    removeMember(number, connection); // a dialler's group, or an accepted one already forgotten
  }

  synchronized void removeMember(int number, StreamMultiplexer connection) {
    members.remove(number, connection);
    memberArray = members.values().toArray(new StreamMultiplexer[0]);
  }

  boolean isEmpty() {
    return members.isEmpty();
  }

  /** The member of number {@code number}, or null when none is (any more). */
  StreamMultiplexer member(int number) {
    return members.get(number);
  }

  Collection<StreamMultiplexer> members() {
    return members.values();
  }

  int size() {
    return members.size();
  }

  /**
   * The member that can send a frame soonest: among the members that are up, not retiring and
   * writable, the one with the most room before its write queue is full (the kernel's queue is kept
   * short by TCP_NOTSENT_LOWAT, so the queue above it shows what waits); {@code home} on a tie. The
   * express member counts only when no other member is up. Null when no member is writable. Any
   * thread (a channel's writability and room are safe to read from others).
   */
  StreamMultiplexer soonest(StreamMultiplexer home) {
    StreamMultiplexer[] all = memberArray;
    if (all.length < 2) {
      return home.channel().isWritable() ? home : null;
    }
    boolean bulkMemberUp = false;
    for (StreamMultiplexer m : all) {
      bulkMemberUp |= !m.isExpress() && sendsAway(m);
    }
    StreamMultiplexer best = null;
    long bestRoom = -1;
    Channel own = home.channel();
    if (own.isWritable() && !(bulkMemberUp && home.isExpress())) {
      best = home;
      bestRoom = own.bytesBeforeUnwritable();
    }
    for (StreamMultiplexer m : all) {
      if (m == home || !sendsAway(m) || (bulkMemberUp && m.isExpress())) {
        continue;
      }
      Channel c = m.channel();
      if (c.isWritable() && c.bytesBeforeUnwritable() > bestRoom) {
        best = m;
        bestRoom = c.bytesBeforeUnwritable();
      }
    }
    return best;
  }

  /** A retiring connection closes once its own streams are done: bytes of others on it would be lost with it. */
  private static boolean sendsAway(StreamMultiplexer m) {
    return m.isUp() && !m.isRetiring();
  }

  /**
   * The express member when it can take a frame now (up, not retiring, writable) and another member
   * carries the bulk; else null. Any thread.
   */
  StreamMultiplexer express() {
    StreamMultiplexer[] all = memberArray;
    if (all.length < 2) {
      return null;
    }
    for (StreamMultiplexer m : all) {
      if (m.isExpress()) {
        return sendsAway(m) && m.channel().isWritable() ? m : null;
      }
    }
    return null;
  }

  /**
   * A member became writable: the others whose frames wait for room anywhere are woken, on their own
   * loops. Only those: the bulk connection's write queue crosses its watermarks every few dozen
   * kilobytes, and waking the express member (which has nothing waiting) each time was a task and an
   * eventfd wake-up of another thread: 47 thousand in 10 s, a quarter of the sending node's CPU
   * samples on the loopback pair (issue 9, experiment 5, docs/benchmarks.md, cpu9e).
   */
  void writable(StreamMultiplexer connection) {
    StreamMultiplexer[] all = memberArray;
    if (all.length < 2) {
      return;
    }
    for (StreamMultiplexer m : all) {
      if (m != connection && m.awaitingRoom()) {
        m.wakeFromOtherConnection();
      }
    }
  }

  /** {@code lost} left the group (it is closed): every other member checks its streams' bytes sent on it. */
  void lost(StreamMultiplexer lost) {
    for (StreamMultiplexer m : members.values()) {
      if (m != lost) {
        m.otherConnectionLost(lost);
      }
    }
  }
}
