package io.tcpopt.servicenode.session;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Deterministic mutations of valid frames (a seeded {@link Random}): bit flips; the header's length,
 * type, flags, reserved bits and stream id; per-type fields — address families, open-flags, window
 * increments (credits), encoded lengths, reason lengths, HELLO limits, names and sites; truncation,
 * extension and splicing of two frames. Half the time the header length is then made to match the
 * payload again, so that mutations reach the payload checks instead of all stopping at the length.
 */
public final class WireMutator {
  private static final int[] LENGTHS = {0, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 15, 16, 21, 22, 23, 46, 47, 548, 549, 559, 560, 561, 16383, 16384, 65535, 65536,
      65537, 1 << 20, 16777216, 16777217, 0x7fffffff, 0x80000000, 0xffffffff};
  private static final int[] IDS = {0, 1, 2, 3, 4, 5, 6, 7, 9, 11, 13, 1001, 0x7ffffffe, 0x7fffffff, 0x80000000, 0x80000005, 0xffffffff};
  private static final int[] WORDS = {0, 1, 2, 3, 4, 6, 9, 10, 11, 15, 16, 0x3fff, 0x4000, 0x7fff, 0x8000, 0xffff, 0x10000, 0xfffff, 0x100000,
      0x1000000, 0x1000001, 0x7fef_ffff, 0x7ff0_0000, 0x7fff_0000, 0x7fff_fffe, 0x7fff_ffff, 0x8000_0000, 0xffff_fffe, 0xffff_ffff};
  private static final String[] NAMES = {"branch-1", "dc-1", "branch-2", "", "branch", "dc", "BRANCH-1", "branch-1\u0000", "br\u00e4nch-1",
      "x".repeat(255), "branch-1 "};

  /** Where the name's length byte sits in a version-2 HELLO's payload: after the limits, the session and the connection. */
  private static final int NAME_AT = 32;

  private final Random random;
  private final List<byte[]> seeds;

  public WireMutator(long seed, List<byte[]> seeds) {
    this.random = new Random(seed);
    this.seeds = seeds;
  }

  public Random random() {
    return random;
  }

  /** One mutant of {@code frame} (a valid frame): 1 to 3 mutations, then maybe the length fixed. */
  public byte[] mutate(byte[] frame) {
    byte[] b = frame.clone();
    int n = 1 + random.nextInt(3);
    for (int i = 0; i < n; i++) {
      b = mutateOnce(b);
    }
    if (random.nextBoolean() && b.length >= WireOracle.HEADER) {
      ByteBuffer.wrap(b).putInt(0, b.length - WireOracle.HEADER);
    }
    return b;
  }

  private byte[] mutateOnce(byte[] b) {
    if (b.length < WireOracle.HEADER) {
      return random.nextBoolean() ? extend(b) : b;
    }
    ByteBuffer h = ByteBuffer.wrap(b);
    int type = b[4] & 0xff;
    switch (random.nextInt(12)) {
      case 0 -> {
        for (int k = 1 + random.nextInt(4); k > 0; k--) {
          int bit = random.nextInt(b.length * 8);
          b[bit / 8] ^= (byte) (1 << (bit % 8));
        }
      }
      case 1 -> h.putInt(0, random.nextInt(4) == 0 ? b.length - WireOracle.HEADER + random.nextInt(33) - 16 : pick(LENGTHS));
      case 2 -> b[4] = (byte) (random.nextInt(4) == 0 ? random.nextInt(256) : random.nextInt(10));
      case 3 -> b[5] = (byte) (random.nextBoolean() ? 1 << random.nextInt(8) : random.nextInt(256));
      case 4 -> h.putShort(6, (short) (random.nextBoolean() ? 1 << random.nextInt(16) : random.nextInt(65536)));
      case 5 -> h.putInt(8, random.nextInt(3) == 0 ? random.nextInt() : pick(IDS));
      case 6, 7, 8 -> b = field(b, type);
      case 9 -> b = Arrays.copyOf(b, random.nextInt(b.length + 1));
      case 10 -> b = extend(b);
      default -> b = splice(b);
    }
    return b;
  }

  private int pick(int[] values) {
    return values[random.nextInt(values.length)];
  }

  private int word() {
    return random.nextInt(4) == 0 ? random.nextInt() : pick(WORDS);
  }

  private byte[] extend(byte[] b) {
    byte[] tail = new byte[1 + random.nextInt(random.nextInt(64) == 0 ? 70_000 : 64)];
    random.nextBytes(tail);
    byte[] out = Arrays.copyOf(b, b.length + tail.length);
    System.arraycopy(tail, 0, out, b.length, tail.length);
    return out;
  }

  /** This frame cut somewhere, followed by another seed from somewhere: a frame boundary in the wrong place. */
  private byte[] splice(byte[] b) {
    byte[] other = seeds.get(random.nextInt(seeds.size()));
    int cut = random.nextInt(b.length + 1);
    int from = random.nextInt(3) == 0 ? 0 : random.nextInt(other.length + 1);
    byte[] out = Arrays.copyOf(b, cut + other.length - from);
    System.arraycopy(other, from, out, cut, other.length - from);
    return out;
  }

  /** A field of the payload, by the seed's type (the type byte may have been mutated already: then anything goes). */
  private byte[] field(byte[] b, int type) {
    ByteBuffer p = ByteBuffer.wrap(b);
    int payload = b.length - WireOracle.HEADER;
    switch (type) {
      case 0 -> {
        return hello(b);
      }
      case 1 -> {
        if (payload >= 23) {
          switch (random.nextInt(4)) {
            case 0 -> b[12 + 8] = (byte) (random.nextBoolean() ? new int[] {0, 4, 6, 5, 16, 255}[random.nextInt(6)] : random.nextInt(256));
            case 1 -> p.putShort(b.length - 2 - firstBytes(b), (short) new int[] {0, 1, 0x100, 0x200, 0x300, 0x400, 0x500, 0x700, 0x701, 0x800, 0x2,
                0x8000, 0xffff, random.nextInt(65536)}[random.nextInt(14)]);
            case 2 -> {
              // an address or port: any bytes
              int at = 12 + 9 + random.nextInt(Math.max(1, payload - 11));
              b[Math.min(at, b.length - 1)] = (byte) random.nextInt(256);
            }
            default -> {
              return withFirstBytes(b);
            }
          }
        }
        return b;
      }
      case 2 -> {
        if (payload >= 8 && random.nextInt(3) == 0) {
          // the stream offset: in order, a gap, back over bytes received, beyond the credit, beyond 2^63
          p.putLong(12, random.nextInt(4) == 0 ? random.nextLong() : new long[] {0, 1, 2, 3, 4, 5, 6, 10, 50, 100, 1000, 65530, 65535, 65536,
              1L << 32, Long.MAX_VALUE, Long.MIN_VALUE, -1}[random.nextInt(18)]);
          return b;
        }
        if (payload >= 12 && (b[5] & 0x4) != 0 && random.nextInt(3) == 0) {
          p.putInt(12 + 8, random.nextBoolean() ? random.nextInt(3) : word()); // the home connection: this one (0), another, or none
          return b;
        }
        int fields = 8 + ((b[5] & 0x4) != 0 ? 4 : 0);
        if ((b[5] & 0x2) != 0 && payload >= fields + 8) {
          p.putInt(12 + fields + 4, word()); // an encoded segment's decoded length: its credit
          return b;
        }
        // as much data as the credit allows, or more
        int n = random.nextInt(8) != 0 ? random.nextInt(64)
            : new int[] {1 << 16, (1 << 16) - 5, (1 << 16) - 4, 65_000, random.nextInt(70_000)}[random.nextInt(5)];
        byte[] out = Arrays.copyOf(b, WireOracle.HEADER + 8 + n);
        ByteBuffer.wrap(out).putInt(0, 8 + n);
        return out;
      }
      case 3 -> {
        if (payload >= 4) {
          p.putInt(12, word()); // the increment: credit
        }
        return b;
      }
      case 4, 6 -> {
        int lengthAt = type == 4 ? 12 + 4 : 12 + 8;
        if (b.length >= lengthAt + 2) {
          if (random.nextBoolean()) {
            p.putShort(lengthAt, (short) new int[] {0, 1, payload, payload - 5, 0xffff, random.nextInt(65536)}[random.nextInt(6)]);
          } else {
            p.putInt(lengthAt - 4, word()); // the code (GOAWAY: or the last stream id)
          }
        }
        return b;
      }
      case 5 -> {
        if (payload >= 8) {
          p.putLong(12, random.nextInt(4) == 0 ? 42 : random.nextLong());
        }
        return b;
      }
      default -> {
        return extend(b);
      }
    }
  }

  private static int firstBytes(byte[] b) {
    int family = b[12 + 8] & 0xff;
    int fixed = family == 6 ? 47 : 23;
    return Math.max(0, b.length - WireOracle.HEADER - fixed);
  }

  private byte[] withFirstBytes(byte[] b) {
    int keep = Math.min(b.length, WireOracle.HEADER + ((b[12 + 8] & 0xff) == 6 ? 47 : 23));
    int n = random.nextInt(4) != 0 ? new int[] {0, 1, 100}[random.nextInt(3)]
        : new int[] {1 << 16, (1 << 16) - 23, (1 << 16) - 22, random.nextInt(70_000)}[random.nextInt(4)];
    byte[] out = Arrays.copyOf(b, keep + n);
    ByteBuffer.wrap(out).putInt(0, out.length - WireOracle.HEADER);
    return out;
  }

  /**
   * HELLO: a limit, the magic or version, the session or connection, or the name / site rewritten
   * with consistent lengths (so admission decides).
   */
  private byte[] hello(byte[] b) {
    if (b.length < WireOracle.HEADER + NAME_AT + 2) {
      return extend(b);
    }
    ByteBuffer p = ByteBuffer.wrap(b);
    switch (random.nextInt(7)) {
      case 0 -> p.putInt(12, random.nextInt(4) == 0 ? random.nextInt() : 0x5443504F ^ (1 << random.nextInt(32)));
      case 1 -> p.putShort(16, (short) new int[] {0, 1, 3, 0xffff, random.nextInt(65536)}[random.nextInt(5)]);
      case 2 -> p.putShort(18, (short) (1 + random.nextInt(65535)));
      case 3 -> p.putInt(20 + 4 * random.nextInt(3), word());
      case 4 -> {
        int at = WireOracle.HEADER + NAME_AT + (random.nextBoolean() ? 0 : 1 + (b[WireOracle.HEADER + NAME_AT] & 0xff));
        if (at < b.length) {
          b[at] = (byte) new int[] {0, 1, 254, 255, (b[at] & 0xff) + 1, (b[at] & 0xff) - 1, random.nextInt(256)}[random.nextInt(7)];
        }
      }
      case 5 -> {
        if (random.nextBoolean()) {
          p.putLong(32, random.nextInt(3) == 0 ? 0 : random.nextLong()); // the session: not checked by a receiver
        } else {
          p.putInt(40, word()); // the connection index
        }
      }
      default -> {
        return rebuildHello(b);
      }
    }
    return b;
  }

  private byte[] rebuildHello(byte[] b) {
    ByteBuffer in = ByteBuffer.wrap(b);
    byte[] fixed = Arrays.copyOfRange(b, WireOracle.HEADER, WireOracle.HEADER + NAME_AT);
    in.position(WireOracle.HEADER + NAME_AT);
    byte[] name = readName(in);
    byte[] site = name == null ? null : readName(in);
    if (site == null) {
      return b;
    }
    byte[] cache = Arrays.copyOfRange(b, in.position(), b.length);
    switch (random.nextInt(5)) {
      case 0 -> name = strange(NAMES[random.nextInt(NAMES.length)]);
      case 1 -> site = strange(new String[] {"branch", "dc", "", "branch-2", "Branch", "x".repeat(255)}[random.nextInt(6)]);
      case 2 -> {
        cache = new byte[random.nextInt(4) == 0 ? random.nextInt(20) : 16];
        ByteBuffer c = ByteBuffer.wrap(cache);
        if (cache.length == 16) {
          c.putLong(random.nextBoolean() ? 0 : random.nextLong()).putLong(random.nextBoolean() ? 0 : random.nextInt(3) == 0 ? -1 : random.nextLong());
        } else {
          random.nextBytes(cache);
        }
      }
      case 3 -> {
        byte[] bad = {(byte) 0xff, (byte) 0xfe, (byte) 0xc3, 0x28, (byte) 0xed, (byte) 0xa0, (byte) 0x80};
        name = Arrays.copyOf(name, name.length + 1 + random.nextInt(3));
        name[name.length - 1] = bad[random.nextInt(bad.length)];
      }
      default -> name = strange(randomName());
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int length = NAME_AT + 1 + name.length + 1 + site.length + cache.length;
    ByteBuffer header = ByteBuffer.allocate(WireOracle.HEADER).putInt(length).put((byte) 0).put((byte) 0).putShort((short) 0).putInt(0);
    out.writeBytes(header.array());
    out.writeBytes(fixed);
    out.write(name.length);
    out.writeBytes(name);
    out.write(site.length);
    out.writeBytes(site);
    out.writeBytes(cache);
    return out.toByteArray();
  }

  private String randomName() {
    byte[] r = new byte[random.nextInt(12)];
    for (int i = 0; i < r.length; i++) {
      r[i] = (byte) ('a' + random.nextInt(26));
    }
    return new String(r, StandardCharsets.US_ASCII);
  }

  private static byte[] strange(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    return b.length > 255 ? Arrays.copyOf(b, 255) : b;
  }

  private static byte[] readName(ByteBuffer in) {
    if (!in.hasRemaining()) {
      return null;
    }
    int len = in.get() & 0xff;
    if (len > in.remaining()) {
      return null;
    }
    byte[] n = new byte[len];
    in.get(n);
    return n;
  }
}
