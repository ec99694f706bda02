package io.tcpopt.servicenode.session;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.tcpopt.servicenode.trust.PeerAdmission;
import io.tcpopt.servicenode.wire.FrameCodec;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.IntFunction;

/**
 * WAN connections of one dialler's pool and the acceptor's ends of them, on EmbeddedChannels whose
 * bytes the test carries between them ({@link #carry}), counting what crosses each connection each
 * way. Which end has room is set through Netty's user-defined writability ({@link #room}), so every
 * step is deterministic.
 */
final class EmbeddedPool {
  /** The dialler's connections, the acceptor's ends of them, and their multiplexers. */
  final EmbeddedChannel[] branch;
  final EmbeddedChannel[] dc;
  final StreamMultiplexer[] branchMux;
  final StreamMultiplexer[] dcMux;
  /** The dialler's group (its pool's). */
  final ConnectionGroup pool = new ConnectionGroup();
  /** Bytes carried over each connection so far, towards the acceptor and back. */
  final long[] toDc;
  final long[] toBranch;

  /**
   * Dials connection {@code c} as number {@code numbers[c]} of one pool ({@link
   * PooledConnection#number}); {@code acceptors.apply(c)} takes the streams opened on it. Carries
   * the HELLOs, so every connection is up on return.
   */
  EmbeddedPool(SessionSettings branchSettings, SessionSettings dcSettings, int[] numbers, IntFunction<StreamAcceptor> acceptors) {
    this(branchSettings, dcSettings, numbers, acceptors, listener());
  }

  /** As above; {@code branchListener} is told when the dialler's connections come up and go down. */
  EmbeddedPool(SessionSettings branchSettings, SessionSettings dcSettings, int[] numbers, IntFunction<StreamAcceptor> acceptors,
      SessionListener branchListener) {
    int n = numbers.length;
    branch = new EmbeddedChannel[n];
    dc = new EmbeddedChannel[n];
    branchMux = new StreamMultiplexer[n];
    dcMux = new StreamMultiplexer[n];
    toDc = new long[n];
    toBranch = new long[n];
    long session = PooledConnection.newSession();
    for (int c = 0; c < n; c++) {
      branchMux[c] = new StreamMultiplexer(branchSettings, true, null, branchListener, (identity, name, site) -> PeerAdmission.admitted(name, site))
          .pooledAs(new PooledConnection(session, numbers[c], pool));
      branch[c] = new EmbeddedChannel(new FrameCodec(1 << 20), branchMux[c]);
      dcMux[c] = new StreamMultiplexer(dcSettings, false, acceptors.apply(c), listener(), (identity, name, site) -> PeerAdmission.admitted(name, site));
      dc[c] = new EmbeddedChannel(new FrameCodec(1 << 20), dcMux[c]);
    }
    carry();
  }

  private static SessionListener listener() {
    return new SessionListener() {
      @Override
      public void sessionUp(StreamMultiplexer connection) {}

      @Override
      public void sessionDown(StreamMultiplexer connection, String reason) {}
    };
  }

  /** Runs both ends' tasks and carries bytes each way until nothing moves. */
  void carry() {
    for (int round = 0; round < 1000; round++) {
      boolean moved = false;
      for (int c = 0; c < branch.length; c++) {
        long in = move(branch[c], dc[c]);
        long out = move(dc[c], branch[c]);
        toDc[c] += in;
        toBranch[c] += out;
        moved |= in > 0 || out > 0;
      }
      if (!moved) {
        return;
      }
    }
    throw new AssertionError("bytes still moving after 1000 rounds");
  }

  /**
   * Carries what the dialler wrote towards the acceptor with the connections interleaved at random,
   * as frames of one stream sent on several connections may arrive: each connection's bytes stay in
   * order (TCP) but are cut at random sizes, and the next piece to arrive is drawn from a random
   * connection among those with bytes left. Then {@link #carry}: the answers, and what they release.
   */
  void carryInterleaved(Random random) {
    List<ArrayDeque<ByteBuf>> pieces = new ArrayList<>();
    for (EmbeddedChannel from : branch) {
      from.runPendingTasks();
      ArrayDeque<ByteBuf> cut = new ArrayDeque<>();
      ByteBuf b;
      while ((b = from.readOutbound()) != null) {
        while (b.readableBytes() > 0) {
          cut.add(b.readRetainedSlice(Math.min(b.readableBytes(), 1 + random.nextInt(6_000))));
        }
        b.release();
      }
      pieces.add(cut);
    }
    List<Integer> left = new ArrayList<>();
    for (int c = 0; c < pieces.size(); c++) {
      if (!pieces.get(c).isEmpty()) {
        left.add(c);
      }
    }
    while (!left.isEmpty()) {
      int i = random.nextInt(left.size());
      int c = left.get(i);
      ByteBuf piece = pieces.get(c).poll();
      toDc[c] += piece.readableBytes();
      dc[c].writeInbound(piece);
      dc[c].runPendingTasks();
      if (pieces.get(c).isEmpty()) {
        left.remove(i);
      }
    }
    carry();
  }

  /** Carries what {@code from} wrote to {@code to} (dropped if {@code to} is closed): returns how many bytes. */
  private static long move(EmbeddedChannel from, EmbeddedChannel to) {
    from.runPendingTasks();
    long moved = 0;
    ByteBuf b;
    while ((b = from.readOutbound()) != null) {
      moved += b.readableBytes();
      if (to.isOpen()) {
        to.writeInbound(b);
      } else {
        b.release();
      }
    }
    to.runPendingTasks();
    return moved;
  }

  /** {@code end} (one of {@link #branch} or {@link #dc}) has room ({@code true}) or none. */
  static void room(EmbeddedChannel end, boolean room) {
    end.unsafe().outboundBuffer().setUserDefinedWritability(1, room);
    end.runPendingTasks();
  }

  /** Connection {@code c} is lost: both ends close, and what that sends is carried. */
  void lose(int c) {
    branch[c].close();
    dc[c].close();
    carry();
  }

  /** Closes every end and releases what they still hold. */
  void close() {
    for (int c = 0; c < branch.length; c++) {
      branch[c].finishAndReleaseAll();
      dc[c].finishAndReleaseAll();
    }
  }
}
