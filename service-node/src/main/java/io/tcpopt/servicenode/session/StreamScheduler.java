package io.tcpopt.servicenode.session;

import io.tcpopt.servicenode.wire.DataFrame;
import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * Chooses which stream's bytes go out next on the WAN: deficit round robin over the streams with
 * bytes waiting, each turn worth {@link #QUANTUM} bytes, so N busy streams share the connection
 * equally whatever their read sizes. A stream that had nothing waiting and becomes busy is served
 * before the busy ones for its first quantum (fq_codel's "new flows"): a 1 KB request goes out
 * ahead of the bulk backlog instead of behind it.
 *
 * <p>The scheduler holds no bytes itself: each stream keeps its own send queue ({@link
 * MuxStream#pollFrame}). Confined to the connection's event loop.
 */
final class StreamScheduler {
  /** Bytes a stream may send per turn; also the largest DATA payload the scheduler makes. */
  static final int QUANTUM = 32 * 1024;

  private final ArrayDeque<MuxStream> fresh = new ArrayDeque<>();
  private final ArrayDeque<MuxStream> busy = new ArrayDeque<>();
  private final ArrayDeque<MuxStream> roomAgain = new ArrayDeque<>();

  /** {@code stream} has bytes (or its end) waiting: it takes part from now on. */
  void add(MuxStream stream) {
    if (!stream.scheduled) {
      stream.scheduled = true;
      stream.deficit = QUANTUM;
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
      ArrayDeque<MuxStream> list = fresh.isEmpty() ? busy : fresh;
      MuxStream s = list.peek();
      if (s == null) {
        return null;
      }
      if (!s.hasPending()) {
        list.poll();
        s.scheduled = false;
        continue;
      }
      if (s.deficit <= 0) {
        list.poll();
        s.deficit += QUANTUM;
        busy.add(s);
        continue;
      }
      DataFrame frame = s.pollFrame(limit);
      s.deficit -= frame.content().readableBytes();
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
    int limit = Math.min(maxPayload, QUANTUM);
    for (Iterator<MuxStream> it = fresh.iterator(); it.hasNext(); ) {
      MuxStream s = it.next();
      DataFrame frame = s.pollInteractiveFrame(limit, nowNanos);
      if (frame == null) {
        continue;
      }
      s.deficit -= frame.content().readableBytes();
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
    for (MuxStream s : fresh) {
      if (s.hasPending()) {
        return false;
      }
    }
    for (MuxStream s : busy) {
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
    for (MuxStream s : busy) {
      s.dropPending();
    }
    fresh.clear();
    busy.clear();
    roomAgain.clear();
  }
}
