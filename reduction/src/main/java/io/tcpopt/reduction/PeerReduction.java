package io.tcpopt.reduction;

import io.tcpopt.common.policy.DataReduction;
import io.tcpopt.reduction.ControlMessage.ChunkId;
import io.tcpopt.reduction.ControlMessage.Piece;
import io.tcpopt.reduction.store.ChunkBytes;
import io.tcpopt.reduction.store.ChunkStore;
import io.tcpopt.reduction.store.Crc;
import io.tcpopt.reduction.store.Fingerprint;
import io.tcpopt.reduction.store.FingerprintTable;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Data reduction with one peer node: the encoder side (streams sent to the peer, and what this node
 * knows the peer's cache holds) and the decoder side (streams received from it, and the chunks it
 * was asked to resupply), plus the control messages between the two. One per peer, kept across
 * the peer's connections; thread-safe (one lock, never held while calling the transport).
 *
 * <p>What the peer holds ("known" chunks) is valid for the peer's cache epoch only. A chunk is
 * known when this node sent it as a literal (pending until the peer acknowledges the bytes, see
 * {@link StreamEncoder#acknowledged}), or received it from the peer as a literal or reference
 * (the peer stored it when it encoded it). It is forgotten on the peer's EVICTED notice, a NACK,
 * a new peer epoch, or when the bounded record is full. The rules and the reasons are in
 * docs/data-reduction.md ("Keeping the caches in agreement").
 */
public final class PeerReduction {
  /** Pending evictions to announce are bounded; past it the oldest are dropped (a NACK repairs). */
  static final int MAX_EVICTED_QUEUE = 1 << 16;
  /**
   * How long the references of a cleanly ended stream stay retained: the peer may still be
   * decoding its tail (no credit comes back after END_STREAM), and a reference it cannot resolve
   * then needs these bytes. At most {@link #MAX_LINGERING_BYTES}, the oldest released first.
   */
  static final long LINGER_NANOS = 60_000_000_000L;
  static final long MAX_LINGERING_BYTES = 64L << 20;

  private final ReductionEngine engine;
  private final String name;
  private final ReductionStats stats = new ReductionStats();

  // ---- the peer's cache as this node knows it (encoder side)
  private long peerEpoch;
  private long peerCapacity;
  private int maxKnown;
  /**
   * The chunks the peer holds, least recently used first: length, CRC and the {@link
   * StreamEncoder#id} of the stream whose literal introduced it until the peer acknowledged it (0
   * once confirmed). A table of primitives, not an object per chunk (see {@link FingerprintTable}).
   */
  private final FingerprintTable known = new FingerprintTable(3, 1024);
  private static final int KNOWN_LENGTH = 0;
  private static final int KNOWN_CRC = 1;
  private static final int KNOWN_OWNER = 2;
  private int lastEncoderId;
  private final Map<ChunkId, Retained> retained = new HashMap<>();

  private final ArrayDeque<Lingering> lingering = new ArrayDeque<>();
  private long lingeringBytes;

  // ---- chunks this node asked the peer for (decoder side)
  private final Map<ChunkId, Wanted> wanted = new HashMap<>(); // by fingerprint, length and CRC: colliding chunks apart

  // ---- control messages to send
  private boolean epochDue = true;
  private final ArrayDeque<ChunkId> nackQueue = new ArrayDeque<>();
  private final ArrayDeque<Resupply> resupplyQueue = new ArrayDeque<>();
  private final ArrayDeque<Fingerprint> evictedQueue = new ArrayDeque<>();
  private Runnable controlPending = () -> {};

  /** Bytes of chunks sent as references and not yet acknowledged, kept to answer a NACK. */
  private static final class Retained {
    final ChunkBytes data;
    int refs;

    Retained(ChunkBytes data) {
      this.data = data;
    }
  }

  /** A retained reference of a stream that ended cleanly, released when it expires. */
  private record Lingering(ChunkId id, long since) {}

  /** A chunk requested from the peer, the decoders waiting for it, and its bytes once they came. */
  private static final class Wanted {
    final ChunkId id;
    final List<StreamDecoder> waiters = new ArrayList<>(1);
    byte[] assembling;
    BitSet received;
    byte[] data;
    boolean unavailable;

    Wanted(ChunkId id) {
      this.id = id;
    }
  }

  private static final class Resupply {
    final ChunkId id;
    final ChunkBytes data; // null: unavailable
    int sent;

    Resupply(ChunkId id, ChunkBytes data) {
      this.id = id;
      this.data = data;
    }
  }

  /** The outcome of {@link #takeSupplied}. */
  enum Supply {
    WAITING,
    READY,
    UNAVAILABLE,
    UNREGISTERED
  }

  PeerReduction(ReductionEngine engine, String name) {
    this.engine = engine;
    this.name = name;
    this.maxKnown = Math.min(engine.settings().maxKnownChunks(), 1 << 14);
  }

  public String name() {
    return name;
  }

  public ReductionStats stats() {
    return stats;
  }

  ChunkStore store() {
    return engine.store();
  }

  ReductionEngine engine() {
    return engine;
  }

  // ---- the transport's interface ----------------------------------------------------------

  /**
   * A stream this node sends to the peer. {@code maxSegmentBytes} bounds every encoded segment
   * (the peer's largest frame payload, at least 1 KiB).
   */
  public StreamEncoder openEncoder(DataReduction mode, int maxSegmentBytes) {
    int id;
    synchronized (this) {
      id = ++lastEncoderId == 0 ? ++lastEncoderId : lastEncoderId; // 0 means "confirmed"
    }
    return new StreamEncoder(this, mode, maxSegmentBytes, id);
  }

  /**
   * A stream the peer sends to this node. {@code wakeup} is run (on whatever thread received the
   * control message) when chunks the decoder waits for arrive or turn out unavailable: the
   * transport should then call {@link StreamDecoder#poll()} again on the stream's thread.
   */
  public StreamDecoder openDecoder(Runnable wakeup) {
    return new StreamDecoder(this, wakeup);
  }

  /**
   * The peer's cache epoch and size, from its HELLO or EPOCH message. A new epoch makes this node
   * forget everything it knew the peer held.
   */
  public void peerEpoch(long epoch, long capacityBytes) {
    synchronized (this) {
      if (epoch != peerEpoch) {
        known.clear();
        peerEpoch = epoch;
      }
      peerCapacity = capacityBytes;
      maxKnown = (int) Math.max(1024, Math.min(engine.settings().maxKnownChunks(), capacityBytes / 1024));
      trimKnown();
    }
  }

  /**
   * A session with the peer (re)started: announce this node's epoch again and repeat outstanding
   * requests, which may have been lost with the previous connections.
   */
  public void sessionStarted() {
    synchronized (this) {
      epochDue = true;
      nackQueue.clear();
      for (Wanted w : wanted.values()) {
        if (w.data == null && !w.unavailable) {
          nackQueue.add(w.id);
        }
      }
    }
    controlPending.run();
  }

  /** Runs {@code r} (from any thread) whenever {@link #pollControl} has something new to send. */
  public void onControlPending(Runnable r) {
    controlPending = r == null ? () -> {} : r;
  }

  /** The next control message to send to the peer, at most {@code maxBytes} (≥ 64) long, or null. */
  public byte[] pollControl(int maxBytes) {
    if (maxBytes < 64) {
      throw new IllegalArgumentException("control messages need at least 64 bytes");
    }
    long epoch = engine.store().epoch();
    synchronized (this) {
      if (epochDue) {
        epochDue = false;
        return ControlMessage.epoch(epoch, engine.store().capacityBytes());
      }
      if (!resupplyQueue.isEmpty()) {
        return resupplyMessage(epoch, maxBytes);
      }
      if (!nackQueue.isEmpty()) {
        int n = Math.min(Math.min(nackQueue.size(), ControlMessage.MAX_ENTRIES),
            (maxBytes - ControlMessage.HEADER) / ControlMessage.NACK_ENTRY);
        Bytes b = ControlMessage.header(ControlMessage.NACK, n, epoch);
        for (int i = 0; i < n; i++) {
          ChunkId id = nackQueue.poll();
          writeId(b, id);
        }
        stats.nacksSent.add(n);
        return b.toArray();
      }
      if (!evictedQueue.isEmpty()) {
        int n = Math.min(Math.min(evictedQueue.size(), ControlMessage.MAX_ENTRIES),
            (maxBytes - ControlMessage.HEADER) / ControlMessage.EVICTED_ENTRY);
        Bytes b = ControlMessage.header(ControlMessage.EVICTED, n, epoch);
        byte[] f = new byte[Fingerprint.BYTES];
        for (int i = 0; i < n; i++) {
          evictedQueue.poll().write(f, 0);
          b.put(f, 0, f.length);
        }
        return b.toArray();
      }
      return null;
    }
  }

  /** A control message from the peer. Malformed: {@link ReductionException} (a protocol error). */
  public void onControl(byte[] message) {
    ControlMessage.Parsed m = ControlMessage.parse(message);
    List<Runnable> wakeups = new ArrayList<>();
    boolean pending = false;
    switch (m.type()) {
      case ControlMessage.EPOCH:
        peerEpoch(m.epoch(), m.capacity());
        break;
      case ControlMessage.NACK:
        pending = nacked(m.epoch(), m.chunks());
        break;
      case ControlMessage.RESUPPLY:
        resupplied(m.pieces(), wakeups);
        break;
      default:
        synchronized (this) {
          if (m.epoch() == peerEpoch) {
            for (Fingerprint f : m.evicted()) {
              forget(f);
            }
          }
        }
        break;
    }
    for (Runnable r : wakeups) {
      r.run();
    }
    if (pending) {
      controlPending.run();
    }
  }

  // ---- encoder side ---------------------------------------------------------------------------

  /**
   * The epoch under which {@code stream} may send this chunk as a reference, or 0 when it must
   * send the literal: the peer must hold it for its current epoch, confirmed or introduced earlier
   * on this same stream (whose segments the peer decodes in order).
   */
  synchronized long referenceEpoch(Fingerprint f, int length, int crc, StreamEncoder stream) {
    if (peerEpoch == 0) {
      return 0;
    }
    int k = knownEntry(f);
    if (k < 0 || known.field(k, KNOWN_LENGTH) != length || known.field(k, KNOWN_CRC) != crc) {
      return 0;
    }
    int owner = known.field(k, KNOWN_OWNER);
    return owner != 0 && owner != stream.id() ? 0 : peerEpoch;
  }

  synchronized long peerEpoch() {
    return peerEpoch;
  }

  /** {@code stream} sent this chunk as a literal: known, pending until acknowledged. */
  synchronized void sentLiteral(Fingerprint f, int length, int crc, StreamEncoder stream) {
    if (peerEpoch == 0) {
      return;
    }
    putKnown(f, length, crc, stream.id());
  }

  /** The peer acknowledged the bytes up to the chunk's end: it has decoded and stored it. */
  synchronized void confirm(Fingerprint f, StreamEncoder stream) {
    int k = knownEntry(f);
    if (k >= 0 && known.field(k, KNOWN_OWNER) == stream.id()) {
      known.field(k, KNOWN_OWNER, 0);
    }
  }

  /** The stream was reset: its unacknowledged literals may never have been decoded. */
  synchronized void abandon(Fingerprint f, StreamEncoder stream) {
    int k = knownEntry(f);
    if (k >= 0 && known.field(k, KNOWN_OWNER) == stream.id()) {
      known.remove(k);
    }
  }

  /** Keeps {@code data} to answer a NACK for {@code id} until as many releases as retains. */
  synchronized void retain(ChunkId id, ChunkBytes data) {
    Retained r = retained.get(id);
    if (r == null) {
      retained.put(id, r = new Retained(data));
    }
    r.refs++;
    if (!lingering.isEmpty()) { // no clock read per chunk while nothing lingers
      expireLingering(System.nanoTime());
    }
  }

  synchronized void release(ChunkId id) {
    Retained r = retained.get(id);
    if (r != null && --r.refs <= 0) {
      retained.remove(id);
    }
  }

  /**
   * A stream ended cleanly with this reference not yet acknowledged: keep its bytes a while
   * ({@link #LINGER_NANOS}, at most {@link #MAX_LINGERING_BYTES} in all) to answer a NACK for the
   * stream's tail, then release it.
   */
  synchronized void linger(ChunkId id) {
    long now = System.nanoTime();
    lingering.add(new Lingering(id, now));
    lingeringBytes += id.length();
    expireLingering(now);
  }

  /** Releases every lingering reference at once, as if its time had passed (tests). */
  synchronized void expireLingering() {
    expireLingering(Long.MAX_VALUE / 2 + System.nanoTime());
  }

  private void expireLingering(long now) {
    while (!lingering.isEmpty()
        && (lingeringBytes > MAX_LINGERING_BYTES || now - lingering.peek().since() > LINGER_NANOS)) {
      Lingering l = lingering.poll();
      lingeringBytes -= l.id().length();
      release(l.id());
    }
  }

  /** The peer could not resolve these references: forget them and queue their bytes. */
  private boolean nacked(long epoch, List<ChunkId> ids) {
    stats.nacksReceived.add(ids.size());
    List<Resupply> answers = new ArrayList<>(ids.size());
    List<ChunkId> fromStore = new ArrayList<>();
    synchronized (this) {
      expireLingering(System.nanoTime());
      for (ChunkId id : ids) {
        if (epoch == peerEpoch) {
          forget(id.fingerprint());
        }
        Retained r = retained.get(id);
        if (r != null) {
          answers.add(new Resupply(id, r.data));
        } else {
          fromStore.add(id);
        }
      }
    }
    for (ChunkId id : fromStore) {
      ChunkBytes data = engine.store().find(id.fingerprint(), id.length(), id.crc());
      if (data == null) {
        stats.unavailable.increment();
      }
      answers.add(new Resupply(id, data));
    }
    synchronized (this) {
      resupplyQueue.addAll(answers);
    }
    return true;
  }

  /** Builds one RESUPPLY message from the queue, splitting chunks that do not fit. Holds the lock. */
  private byte[] resupplyMessage(long epoch, int maxBytes) {
    Bytes b = ControlMessage.header(ControlMessage.RESUPPLY, 0, epoch);
    int count = 0;
    while (!resupplyQueue.isEmpty() && count < ControlMessage.MAX_ENTRIES) {
      Resupply r = resupplyQueue.peek();
      int room = maxBytes - b.length() - ControlMessage.RESUPPLY_ENTRY;
      if (room <= 0 || (r.data != null && room < Math.min(256, r.data.length() - r.sent))) {
        break;
      }
      writeId(b, r.id);
      if (r.data == null) {
        b.u8(1);
        b.u32(0);
        b.u32(0);
        resupplyQueue.poll();
      } else {
        int n = Math.min(room, r.data.length() - r.sent);
        b.u8(0);
        b.u32(r.sent);
        b.u32(n);
        b.put(r.data.page(), r.data.offset() + r.sent, n);
        r.sent += n;
        stats.resuppliedBytes.add(n);
        if (r.sent == r.data.length()) {
          resupplyQueue.poll();
        }
      }
      count++;
    }
    byte[] out = b.toArray();
    out[2] = (byte) (count >>> 8);
    out[3] = (byte) count;
    return out;
  }

  private static void writeId(Bytes b, ChunkId id) {
    byte[] f = new byte[Fingerprint.BYTES];
    id.fingerprint().write(f, 0);
    b.put(f, 0, f.length);
    b.u32(id.length());
    b.u32(id.crc());
  }

  private void trimKnown() {
    while (known.size() > maxKnown) {
      known.remove(known.eldest());
    }
  }

  /** The known entry of {@code f}, made most recently used, or -1. Holds the lock. */
  private int knownEntry(Fingerprint f) {
    int k = known.find(f);
    if (k >= 0) {
      known.touch(k);
    }
    return k;
  }

  /** Records (or replaces) what the peer holds under {@code f}, as the most recently used. Holds the lock. */
  private void putKnown(Fingerprint f, int length, int crc, int owner) {
    int k = knownEntry(f);
    if (k < 0) {
      k = known.add(f.high(), f.low());
    }
    known.field(k, KNOWN_LENGTH, length);
    known.field(k, KNOWN_CRC, crc);
    known.field(k, KNOWN_OWNER, owner);
    trimKnown();
  }

  /** The peer no longer holds {@code f}. Holds the lock. */
  private void forget(Fingerprint f) {
    int k = known.find(f);
    if (k >= 0) {
      known.remove(k);
    }
  }

  /** Our cache dropped these chunks: tell the peer, which may have been about to reference them. */
  void evicted(List<Fingerprint> fingerprints) {
    synchronized (this) {
      for (Fingerprint f : fingerprints) {
        if (evictedQueue.size() >= MAX_EVICTED_QUEUE) {
          evictedQueue.poll();
        }
        evictedQueue.add(f);
      }
    }
    controlPending.run();
  }

  /** Our cache started a new epoch. */
  void ownEpochChanged() {
    synchronized (this) {
      epochDue = true;
      evictedQueue.clear();
    }
    controlPending.run();
  }

  // ---- decoder side ---------------------------------------------------------------------------

  /** The peer sent this chunk (literal or reference) under {@code senderEpoch}: it holds it. */
  synchronized void peerHolds(Fingerprint f, int length, int crc, long senderEpoch) {
    if (senderEpoch == 0 || senderEpoch != peerEpoch) {
      return;
    }
    int k = knownEntry(f);
    if (k < 0 || known.field(k, KNOWN_LENGTH) != length || known.field(k, KNOWN_CRC) != crc) {
      putKnown(f, length, crc, 0);
    } else {
      known.field(k, KNOWN_OWNER, 0);
    }
  }

  /** {@code decoder} cannot resolve this reference: register it and request the chunk once. */
  void want(ChunkId id, StreamDecoder decoder) {
    boolean queued = false;
    synchronized (this) {
      Wanted w = wanted.get(id);
      if (w == null) {
        w = new Wanted(id);
        wanted.put(id, w);
        nackQueue.add(id);
        queued = true;
      }
      w.waiters.add(decoder);
    }
    if (queued) {
      controlPending.run();
    }
  }

  /**
   * The supplied bytes for a reference {@code decoder} waits for: READY with {@code out[0]} set,
   * WAITING, UNAVAILABLE (the peer no longer has the chunk), or UNREGISTERED (not requested).
   */
  synchronized Supply takeSupplied(ChunkId id, StreamDecoder decoder, byte[][] out) {
    Wanted w = wanted.get(id);
    if (w == null || !w.waiters.contains(decoder)) {
      return Supply.UNREGISTERED;
    }
    if (w.data == null && !w.unavailable) {
      return Supply.WAITING;
    }
    w.waiters.remove(decoder);
    if (w.waiters.isEmpty()) {
      wanted.remove(id);
    }
    if (w.unavailable) {
      return Supply.UNAVAILABLE;
    }
    out[0] = w.data;
    return Supply.READY;
  }

  /** The decoder is closed: it no longer waits for anything. */
  synchronized void unwant(ChunkId id, StreamDecoder decoder) {
    Wanted w = wanted.get(id);
    if (w != null && w.waiters.remove(decoder) && w.waiters.isEmpty()) {
      wanted.remove(id);
    }
  }

  private void resupplied(List<Piece> pieces, List<Runnable> wakeups) {
    List<Object[]> toStore = new ArrayList<>();
    synchronized (this) {
      for (Piece p : pieces) {
        Wanted w = wanted.get(p.id());
        if (w == null || w.data != null || w.unavailable) {
          continue; // not (or no longer) wanted: a late answer
        }
        if (!p.available()) {
          w.unavailable = true;
          stats.unavailable.increment();
          w.waiters.forEach(d -> wakeups.add(d.wakeup()));
          continue;
        }
        if (w.assembling == null) {
          w.assembling = new byte[w.id.length()];
          w.received = new BitSet(w.id.length());
        }
        System.arraycopy(p.data(), p.dataOffset(), w.assembling, p.offset(), p.count());
        w.received.set(p.offset(), p.offset() + p.count());
        if (w.received.cardinality() == w.id.length()) {
          if (Crc.of(w.assembling) == w.id.crc()
              && engine.settings().fingerprints().of(w.assembling, 0, w.assembling.length).equals(w.id.fingerprint())) {
            w.data = w.assembling;
            toStore.add(new Object[] {w.id, w.data});
          } else {
            w.unavailable = true; // the peer's bytes are not the chunk it referenced
            stats.unavailable.increment();
          }
          w.assembling = null;
          w.received = null;
          w.waiters.forEach(d -> wakeups.add(d.wakeup()));
        }
      }
    }
    for (Object[] s : toStore) {
      ChunkId id = (ChunkId) s[0];
      engine.store().put(id.fingerprint(), (byte[]) s[1], id.crc());
    }
  }

  // ---- for tests and status -------------------------------------------------------------------

  /** Sizes of the per-peer records, for tests and status. */
  public record Records(int known, int pendingKnown, int retained, int wanted, int queuedControl) {}

  public synchronized Records records() {
    int pending = 0;
    for (int k = known.eldest(); k >= 0; k = known.newerThan(k)) {
      if (known.field(k, KNOWN_OWNER) != 0) {
        pending++;
      }
    }
    return new Records(known.size(), pending, retained.size(), wanted.size(),
        nackQueue.size() + resupplyQueue.size() + evictedQueue.size() + (epochDue ? 1 : 0));
  }
}
