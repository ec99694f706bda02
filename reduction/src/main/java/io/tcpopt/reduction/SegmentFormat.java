package io.tcpopt.reduction;

/**
 * Constants of the encoded segment (docs/data-reduction.md, "Segment"): the payload of one DATA
 * frame of a stream that uses data reduction.
 */
final class SegmentFormat {
  static final int VERSION = 1;
  static final int HEADER = 16;
  static final int EPOCHS = 16;
  static final int MAX_HEADER = HEADER + EPOCHS;

  static final int FLAG_DEDUP = 0x01;
  static final int FLAG_PREFIX = 0x02;
  static final int CODEC_SHIFT = 2;
  static final int CODEC_MASK = 0x0c;
  static final int FLAGS_KNOWN = FLAG_DEDUP | FLAG_PREFIX | CODEC_MASK;

  static final int CODEC_NONE = 0;
  static final int CODEC_LZ4 = 1;
  static final int CODEC_ZSTD = 2;

  static final int OP_LITERAL = 0x01;
  static final int OP_CHUNK = 0x02;
  static final int OP_REF = 0x03;
  static final int OP_CUT = 0x04;
  static final int LITERAL_OP_BYTES = 5;
  static final int CHUNK_OP_BYTES = 1;
  static final int REF_OP_BYTES = 25;
  static final int CUT_OP_BYTES = 1;
  static final int MAX_OPS = 65535;

  /** Largest decoded length of one segment (it counts against stream credit before decoding). */
  static final int MAX_DECODED = 1 << 20;
  /** Largest literal block, raw. */
  static final int MAX_LITERAL = 1 << 20;
  /** Largest chunk (open chunk, CHUNK, REF). */
  static final int MAX_CHUNK = 1 << 16;
  /** The zstd prefix is at most the last 16 KiB of the previous literal block (most of the gain of 64 KiB at 2/3 of its cost). */
  static final int MAX_PREFIX = 1 << 14;

  private SegmentFormat() {}
}
