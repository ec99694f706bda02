package io.tcpopt.reduction;

import io.tcpopt.reduction.store.Fingerprint;
import java.util.ArrayList;
import java.util.List;

/**
 * The data-reduction control messages (docs/data-reduction.md, "Control messages"): EPOCH, NACK,
 * RESUPPLY and EVICTED, each a plain byte array the transport carries in its own frame type.
 */
final class ControlMessage {
  static final int EPOCH = 1;
  static final int NACK = 2;
  static final int RESUPPLY = 3;
  static final int EVICTED = 4;

  static final int HEADER = 12;
  static final int EPOCH_BYTES = HEADER + 8;
  static final int NACK_ENTRY = 24;
  static final int RESUPPLY_ENTRY = 33;
  static final int EVICTED_ENTRY = 16;
  static final int MAX_ENTRIES = 65535;

  /** One chunk named with its check values. */
  record ChunkId(Fingerprint fingerprint, int length, int crc) {}

  /** A piece of a resupplied chunk: {@code data} is null when the sender no longer has the chunk. */
  record Piece(ChunkId id, boolean available, int offset, byte[] data, int dataOffset, int count) {}

  /** A parsed message: one of the typed lists is filled, per {@link #type}. */
  record Parsed(int type, long epoch, long capacity, List<ChunkId> chunks, List<Piece> pieces, List<Fingerprint> evicted) {}

  private ControlMessage() {}

  static Bytes header(int type, int count, long epoch) {
    Bytes b = new Bytes(64);
    b.u8(type);
    b.u8(0);
    b.u16(count);
    b.u64(epoch);
    return b;
  }

  static byte[] epoch(long epoch, long capacity) {
    Bytes b = header(EPOCH, 0, epoch);
    b.u64(capacity);
    return b.toArray();
  }

  static Parsed parse(byte[] m) {
    if (m.length < HEADER) {
      throw bad("shorter than its 12-byte header");
    }
    int type = m[0] & 0xff;
    if (m[1] != 0) {
      throw bad("flags must be 0");
    }
    int count = Bytes.u16At(m, 2);
    long epoch = Bytes.longAt(m, 4);
    if (epoch == 0) {
      throw bad("epoch 0");
    }
    int at = HEADER;
    switch (type) {
      case EPOCH:
        if (count != 0 || m.length != EPOCH_BYTES) {
          throw bad("EPOCH must have no entries and be 20 bytes");
        }
        return new Parsed(type, epoch, Bytes.longAt(m, HEADER), List.of(), List.of(), List.of());
      case NACK: {
        if (m.length != HEADER + count * NACK_ENTRY || count == 0) {
          throw bad("NACK length does not match its " + count + " entries");
        }
        List<ChunkId> ids = new ArrayList<>(count);
        for (int i = 0; i < count; i++, at += NACK_ENTRY) {
          ids.add(chunkId(m, at));
        }
        return new Parsed(type, epoch, 0, ids, List.of(), List.of());
      }
      case RESUPPLY: {
        if (count == 0) {
          throw bad("RESUPPLY without entries");
        }
        List<Piece> pieces = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
          if (at + RESUPPLY_ENTRY > m.length) {
            throw bad("RESUPPLY entry " + i + " is truncated");
          }
          ChunkId id = chunkId(m, at);
          int status = m[at + 24] & 0xff;
          int offset = Bytes.intAt(m, at + 25);
          int n = Bytes.intAt(m, at + 29);
          at += RESUPPLY_ENTRY;
          if (status > 1 || (status == 1 && (offset != 0 || n != 0))) {
            throw bad("RESUPPLY entry " + i + " has status " + status + " with " + n + " bytes");
          }
          if (status == 0 && (n <= 0 || offset < 0 || (long) offset + n > id.length() || at + n > m.length)) {
            throw bad("RESUPPLY entry " + i + " bytes " + offset + "+" + n + " outside its chunk or message");
          }
          pieces.add(new Piece(id, status == 0, offset, m, at, status == 0 ? n : 0));
          at += status == 0 ? n : 0;
        }
        if (at != m.length) {
          throw bad("RESUPPLY has " + (m.length - at) + " bytes after its entries");
        }
        return new Parsed(type, epoch, 0, List.of(), pieces, List.of());
      }
      case EVICTED: {
        if (m.length != HEADER + count * EVICTED_ENTRY || count == 0) {
          throw bad("EVICTED length does not match its " + count + " entries");
        }
        List<Fingerprint> fs = new ArrayList<>(count);
        for (int i = 0; i < count; i++, at += EVICTED_ENTRY) {
          fs.add(Fingerprint.read(m, at));
        }
        return new Parsed(type, epoch, 0, List.of(), List.of(), fs);
      }
      default:
        throw bad("unknown type " + type);
    }
  }

  private static ChunkId chunkId(byte[] m, int at) {
    int length = Bytes.intAt(m, at + 16);
    if (length <= 0 || length > SegmentFormat.MAX_CHUNK) {
      throw bad("chunk length " + length + " outside 1.." + SegmentFormat.MAX_CHUNK);
    }
    return new ChunkId(Fingerprint.read(m, at), length, Bytes.intAt(m, at + 20));
  }

  private static ReductionException bad(String why) {
    return new ReductionException("malformed data-reduction control message: " + why);
  }
}
