package io.tcpopt.servicenode.session;

import io.tcpopt.servicenode.wire.DataFrame;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.Iterator;
import java.util.PriorityQueue;
import java.util.Queue;

/**
 * Chooses which stream's bytes go out next on the WAN, in three levels:
 *
 * <ol>
 *   <li><b>Fresh:</b> a stream that had nothing waiting and becomes busy is served first, for one
 *       {@link #QUANTUM} (fq_codel's "new flows"): a 1 KB request goes out ahead of any backlog.
 *   <li><b>Young:</b> after that, a stream that has sent less than {@link #YOUNG_BYTES} since it
 *       opened is served whole, in order of its first turn, ahead of the round robin; one that ran
 *       dry for a moment (its leg not read yet) is fresh again, then back at its place. Short
 *       responses thus finish one after another instead of all together (least attained service
 *       with a threshold, in the two-level form PIAS uses in switches).
 *   <li><b>Old:</b> past that, deficit round robin, each turn worth {@link #QUANTUM} bytes, so N
 *       bulk streams share the connection equally whatever their read sizes.
 * </ol>
 *
 * <p>Why the young level: with round robin alone, experiment 3's 23 concurrent 256 KiB responses
 * shared the link equally, all finished within the same 100 ms, and all 23 clients then set up
 * their next transaction at once (txn9, docs/benchmarks.md). With it, the 600 transactions took
 * 5.35-5.59 s (1.06-1.11x the floor) in six runs against 6.12-6.41 s for round robin alone in
 * the six runs alternating with them (txn9e, 2026-12-03 05:11-05:42 UTC, load 1.3-6.3).
 *
 * <p>The scheduler holds no bytes itself: each stream keeps its own send queue ({@link
 * MuxStream#pollFrame}). Confined to the connection's event loop.
 */
final class StreamScheduler {
  /** Bytes a stream may send per turn; also the largest DATA payload the scheduler makes. */
  static final int QUANTUM = 32 * 1024;
  /** A stream is young, and served in order of arrival, until it has sent this many bytes. */
  static final long YOUNG_BYTES = 1 << 20;

  private final ArrayDeque<MuxStream> fresh = new ArrayDeque<>();
  private final PriorityQueue<MuxStream> young = new PriorityQueue<>(Comparator.comparingLong(s -> s.arrival));
  private final ArrayDeque<MuxStream> busy = new ArrayDeque<>();
  private final ArrayDeque<MuxStream> roomAgain = new ArrayDeque<>();
  /** The streams that have had a first turn so far: the next one's place in the order of arrival. */
  private long arrivals;

  /** {@code stream} has bytes (or its end) waiting: it takes part from now on. */
  void add(MuxStream stream) {
    if (!stream.scheduled) {
      stream.scheduled = true;
      stream.deficit = QUANTUM;
      if (stream.arrival == 0) {
        stream.arrival = ++arrivals;
      }
      fresh.add(stream);
    }
  }

  /**
   * The next DATA frame to send, at most {@code maxPayload} bytes, or null when no stream has
   * anything waiting.
   */
  DataFrame next(int maxPayload) {
    int limit = Math.min(maxPayload, QUANTUM);
    while (true) {
      Queue<MuxStream> list = !fresh.isEmpty() ? fresh : !young.isEmpty() ? young : busy;
      MuxStream s = list.peek();
      if (s == null) {
        return null;
      }
      if (!s.hasPending()) {
        list.poll();
        s.scheduled = false;
        continue;
      }
      if (list == young ? s.attained >= YOUNG_BYTES : s.deficit <= 0) {
        list.poll();
        if (s.attained < YOUNG_BYTES) {
          young.add(s);
        } else {
          s.deficit = list == young ? QUANTUM : s.deficit + QUANTUM;
          busy.add(s);
        }
        continue;
      }
      DataFrame frame = s.pollFrame(limit);
      int n = frame.content().readableBytes();
      s.deficit -= n;
      s.attained += n;
      if (s.sendRoomAgain()) {
        roomAgain.add(s);
      }
      if (!s.hasPending()) {
        list.poll();
        s.scheduled = false;
      }
      return frame;
    }
  }

  /**
   * The next frame of a stream that had nothing waiting and now has little ({@link
   * MuxStream#pollInteractiveFrame}), at most {@code maxPayload} bytes, ahead of the round: for the
   * express connection. Null when no such stream waits.
   */
  DataFrame nextInteractive(int maxPayload, long nowNanos) {
    if (fresh.isEmpty()) {
      return null; // the common case under bulk: no iterator for it (it was allocated once per frame sent)
    }
    int limit = Math.min(maxPayload, QUANTUM);
    for (Iterator<MuxStream> it = fresh.iterator(); it.hasNext(); ) {
      MuxStream s = it.next();
      DataFrame frame = s.pollInteractiveFrame(limit, nowNanos);
      if (frame == null) {
        continue;
      }
      int n = frame.content().readableBytes();
      s.deficit -= n;
      s.attained += n;
      if (s.sendRoomAgain()) {
        roomAgain.add(s);
      }
      if (!s.hasPending()) {
        it.remove();
        s.scheduled = false;
      }
      return frame;
    }
    return null;
  }

  /** A stream whose send queue was full and drained enough to take more since the last call, or null. */
  MuxStream pollRoomAgain() {
    return roomAgain.poll();
  }

  /** True when no stream has anything waiting. */
  boolean isIdle() {
    return noneWaits(fresh) && noneWaits(young) && noneWaits(busy);
  }

  private static boolean noneWaits(Iterable<MuxStream> streams) {
    for (MuxStream s : streams) {
      if (s.hasPending()) {
        return false;
      }
    }
    return true;
  }

  /** The connection is gone: every waiting byte is dropped. */
  void clear() {
    for (MuxStream s : fresh) {
      s.dropPending();
    }
    for (MuxStream s : young) {
      s.dropPending();
    }
    for (MuxStream s : busy) {
      s.dropPending();
    }
    fresh.clear();
    young.clear();
    busy.clear();
    roomAgain.clear();
  }
}
