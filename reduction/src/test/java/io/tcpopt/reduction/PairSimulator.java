package io.tcpopt.reduction;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.common.policy.DataReduction;
import java.security.MessageDigest;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;

/**
 * Two nodes' engines joined the way the v2 session will join them, simulated in one thread and
 * driven by a seeded {@link Random}: each stream's segments arrive in order, but streams interleave
 * at random (their frames travel different connections); control messages and credit returns are
 * delayed at random with respect to data. A transfer's credit window bounds what it has in flight.
 * Every transfer's output is compared with its input by SHA-256.
 */
final class PairSimulator {
  static final int MAX_SEGMENT = 64 * 1024;
  static final int CONTROL_MAX = 64 * 1024;

  final Random random;
  final Supplier<ReductionEngine> makeA;
  final Supplier<ReductionEngine> makeB;
  ReductionEngine a;
  ReductionEngine b;
  final List<Transfer> transfers = new ArrayList<>();
  /** Control messages in flight: {to node ('a' or 'b'), payload}. */
  final List<Object[]> control = new ArrayList<>();
  int window = 256 * 1024;
  /** Bound of every encoded segment (the peer's largest DATA payload). */
  int maxSegment = MAX_SEGMENT;
  int maxWrite = 64 * 1024;
  /** Probability that a write is followed by a flush (the leg had nothing more). */
  double flushChance = 0.3;
  long controlMessages;
  /** How many turns control delivery gets among the others: 0 = only when nothing else can move (late notices). */
  int controlWeight = 2;

  PairSimulator(long seed, Supplier<ReductionEngine> makeA, Supplier<ReductionEngine> makeB) {
    this.random = new Random(seed);
    this.makeA = makeA;
    this.makeB = makeB;
    this.a = makeA.get();
    this.b = makeB.get();
  }

  PeerReduction peerOf(char node) {
    return node == 'a' ? a.peer("b") : b.peer("a");
  }

  /** One stream from {@code from} to the other node. */
  final class Transfer {
    final char from;
    final byte[] data;
    final StreamEncoder encoder;
    final StreamDecoder decoder;
    final ArrayDeque<byte[]> inFlight = new ArrayDeque<>();
    final ArrayDeque<Long> credits = new ArrayDeque<>();
    final MessageDigest received = sha256();
    int sent;
    long decoded;
    long acknowledged;
    long wanBytes;
    boolean finished;
    boolean done;
    boolean aborted;
    byte[] receivedPrefix = new byte[0];
    final boolean keepOutput;
    final java.io.ByteArrayOutputStream output = new java.io.ByteArrayOutputStream();

    Transfer(char from, byte[] data, DataReduction mode, boolean keepOutput) {
      this.from = from;
      this.data = data;
      this.keepOutput = keepOutput;
      this.encoder = peerOf(from).openEncoder(mode, maxSegment);
      this.decoder = peerOf(from == 'a' ? 'b' : 'a').openDecoder(() -> {});
    }

    boolean canWrite() {
      return !finished && sent - acknowledged < window;
    }

    private byte[] receiveBuffer = new byte[0];

    void writeSome() {
      int n = Math.min(data.length - sent, 1 + random.nextInt(maxWrite));
      n = (int) Math.min(n, window - (sent - acknowledged));
      if (n > 0) {
        encoder.write(data, sent, n);
        sent += n;
      }
      if (sent == data.length) {
        encoder.finish();
        finished = true;
      } else if (random.nextDouble() < flushChance || sent - acknowledged >= window) {
        encoder.flush(); // the transport flushes when a read burst ends or the credit runs out
      }
      for (byte[] s; (s = encoder.poll()) != null; ) {
        assertTrue(s.length <= maxSegment, "segment of " + s.length + " bytes, bound " + maxSegment);
        inFlight.add(s);
        wanBytes += s.length;
      }
    }

    void deliverOne() {
      byte[] s = inFlight.poll();
      StreamDecoder.decodedLength(s);
      if (random.nextBoolean()) {
        decoder.offer(s);
      } else {
        // As the transport does: through one receive array, longer than the segment and
        // overwritten right after; a decoder that kept any of it would deliver wrong bytes.
        if (receiveBuffer.length < s.length + 64) {
          receiveBuffer = new byte[s.length + 64];
        }
        System.arraycopy(s, 0, receiveBuffer, 0, s.length);
        decoder.offer(receiveBuffer, s.length);
        java.util.Arrays.fill(receiveBuffer, 0, s.length, (byte) 0x5a);
      }
      drain();
    }

    void drain() {
      for (byte[] out; (out = decoder.poll()) != null; ) {
        received.update(out);
        if (keepOutput) {
          output.write(out, 0, out.length);
        }
        decoded += out.length;
        credits.add((long) out.length);
      }
      if (finished && inFlight.isEmpty() && decoded == data.length && !done) {
        done = true;
      }
    }

    void creditOne() {
      long c = credits.poll();
      acknowledged += c;
      encoder.acknowledged(c);
    }

    boolean settled() {
      return aborted || (done && credits.isEmpty());
    }

    void check() {
      assertEquals(data.length, decoded, "bytes decoded");
      assertArrayEquals(sha256().digest(data), received.digest(), "SHA-256 of every byte");
      assertTrue(!decoder.waiting());
    }
  }

  Transfer send(char from, byte[] data, DataReduction mode) {
    Transfer t = new Transfer(from, data, mode, false);
    transfers.add(t);
    return t;
  }

  Transfer sendKeeping(char from, byte[] data, DataReduction mode) {
    Transfer t = new Transfer(from, data, mode, true);
    transfers.add(t);
    return t;
  }

  /** Runs until every transfer is settled and nothing is in flight; checks each one. */
  void run() {
    int steps = 0;
    while (true) {
      pumpControl();
      List<Runnable> actions = new ArrayList<>();
      for (Transfer t : transfers) {
        if (t.aborted) {
          continue;
        }
        if (t.canWrite()) {
          actions.add(t::writeSome);
        }
        if (!t.inFlight.isEmpty()) {
          actions.add(t::deliverOne);
        }
        if (!t.credits.isEmpty()) {
          actions.add(t::creditOne);
        }
      }
      for (int i = 0; i < controlWeight && !control.isEmpty(); i++) {
        actions.add(this::deliverControl);
      }
      if (actions.isEmpty() && !control.isEmpty()) {
        actions.add(this::deliverControl);
      }
      if (actions.isEmpty()) {
        for (Transfer t : transfers) {
          t.drain();
        }
        if (transfers.stream().allMatch(Transfer::settled) && control.isEmpty()) {
          break;
        }
        throw new AssertionError("stuck: transfers " + describe());
      }
      actions.get(random.nextInt(actions.size())).run();
      for (Transfer t : transfers) {
        if (!t.aborted) {
          t.drain();
        }
      }
      if (++steps > 5_000_000) {
        throw new AssertionError("no end after 5M steps: " + describe());
      }
    }
    for (Transfer t : transfers) {
      if (!t.aborted) {
        t.check();
        t.encoder.close(true);
        t.decoder.close();
      }
    }
    transfers.clear();
  }

  private String describe() {
    StringBuilder sb = new StringBuilder();
    for (Transfer t : transfers) {
      sb.append(String.format("[%c sent %d/%d decoded %d inflight %d credits %d waiting %s] ", t.from, t.sent,
          t.data.length, t.decoded, t.inFlight.size(), t.credits.size(), t.decoder.waiting()));
    }
    return sb + " control " + control.size();
  }

  void pumpControl() {
    for (char node : new char[] {'a', 'b'}) {
      for (byte[] m; (m = peerOf(node).pollControl(CONTROL_MAX)) != null; ) {
        control.add(new Object[] {node == 'a' ? 'b' : 'a', m});
        controlMessages++;
      }
    }
  }

  private void deliverControl() {
    Object[] m = control.remove(random.nextInt(control.size()));
    peerOf((char) m[0]).onControl((byte[]) m[1]);
  }

  /** Delivers every control message now (as the start of a session would, before any stream). */
  void settleControl() {
    for (int i = 0; i < 100; i++) {
      pumpControl();
      if (control.isEmpty()) {
        return;
      }
      while (!control.isEmpty()) {
        deliverControl();
      }
    }
  }

  /**
   * Node {@code node} restarts: its engine closes and a new one opens (same settings, so the same
   * disk directory if any); every stream in flight and every control message is lost, as with the
   * WAN connections; the survivor sees a new session.
   */
  void restart(char node) {
    for (Transfer t : transfers) {
      if (!t.settled()) {
        t.aborted = true;
        t.encoder.close(false);
        t.decoder.close();
        byte[] got = t.output.toByteArray();
        if (t.keepOutput) {
          assertArrayEquals(Arrays.copyOf(t.data, got.length), got, "bytes delivered before the restart");
        }
      }
    }
    transfers.clear();
    control.clear();
    if (node == 'a') {
      a.close();
      a = makeA.get();
    } else {
      b.close();
      b = makeB.get();
    }
    peerOf(node == 'a' ? 'b' : 'a').sessionStarted();
  }

  static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }
}
