package io.tcpopt.reduction.codec;

import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdDictContentType;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;

/**
 * The literal-block codecs of the segment format: LZ4 block format (lz4-java) and zstd frames
 * (zstd-jni), the latter optionally with a raw-content prefix (the stream's previous literal
 * block) so that small blocks still find matches in what came before. Native contexts are kept
 * per thread; every method is thread-safe. Decoding never writes past the stated raw length and
 * fails with {@link CodecException} on anything malformed.
 */
public final class Codecs {
  /** zstd level: level 3 is zstd's default, about 5x faster than level 9 for a few % of ratio. */
  public static final int ZSTD_LEVEL = 3;

  private static final LZ4Factory LZ4 = LZ4Factory.fastestInstance();
  private static final LZ4Compressor LZ4_COMPRESSOR = LZ4.fastCompressor();
  private static final LZ4SafeDecompressor LZ4_DECOMPRESSOR = LZ4.safeDecompressor();
  private static final ThreadLocal<ZstdCompressCtx> ZSTD_PLAIN = ThreadLocal.withInitial(Codecs::compressCtx);
  private static final ThreadLocal<ZstdCompressCtx> ZSTD_PREFIXED = ThreadLocal.withInitial(Codecs::compressCtx);
  private static final ThreadLocal<ZstdDecompressCtx> ZSTD_IN = ThreadLocal.withInitial(ZstdDecompressCtx::new);
  private static final ThreadLocal<ZstdDecompressCtx> ZSTD_IN_PREFIXED = ThreadLocal.withInitial(ZstdDecompressCtx::new);

  private Codecs() {}

  private static ZstdCompressCtx compressCtx() {
    ZstdCompressCtx c = new ZstdCompressCtx();
    c.setLevel(ZSTD_LEVEL);
    c.setChecksum(false);
    c.setContentSize(true);
    c.setDictID(false);
    return c;
  }

  /** Upper bound of an LZ4 block for {@code n} input bytes. */
  public static int lz4Bound(int n) {
    return LZ4_COMPRESSOR.maxCompressedLength(n);
  }

  /** Compresses into {@code out} at {@code outOffset}; returns the compressed length, or -1 if it does not fit in {@code outMax}. */
  public static int lz4Compress(byte[] in, int offset, int length, byte[] out, int outOffset, int outMax) {
    try {
      return LZ4_COMPRESSOR.compress(in, offset, length, out, outOffset, outMax);
    } catch (LZ4Exception e) {
      return -1;
    }
  }

  /** Decompresses exactly {@code rawLength} bytes. */
  public static byte[] lz4Decompress(byte[] in, int offset, int length, int rawLength) {
    byte[] out = new byte[rawLength];
    int n;
    try {
      n = LZ4_DECOMPRESSOR.decompress(in, offset, length, out, 0, rawLength);
    } catch (LZ4Exception e) {
      throw new CodecException("malformed LZ4 block: " + e.getMessage());
    }
    if (n != rawLength) {
      throw new CodecException("LZ4 block decodes to " + n + " bytes, the segment says " + rawLength);
    }
    return out;
  }

  /** Upper bound of a zstd frame for {@code n} input bytes. */
  public static int zstdBound(int n) {
    return (int) com.github.luben.zstd.Zstd.compressBound(n);
  }

  /**
   * Compresses one zstd frame into {@code out}; {@code prefix} (may be null) is a raw-content
   * dictionary the decoder must give too. Returns the length, or -1 if it does not fit in {@code outMax}.
   */
  public static int zstdCompress(byte[] in, int offset, int length, byte[] prefix, byte[] out, int outOffset, int outMax) {
    ZstdCompressCtx c = prefix == null ? ZSTD_PLAIN.get() : ZSTD_PREFIXED.get();
    if (prefix != null) {
      c.loadDict(prefix, ZstdDictContentType.RAW_CONTENT);
    }
    try {
      return c.compressByteArray(out, outOffset, outMax, in, offset, length);
    } catch (RuntimeException e) { // ZstdException: destination too small
      return -1;
    }
  }

  /** Decompresses one zstd frame of exactly {@code rawLength} bytes, with the encoder's prefix (or null). */
  public static byte[] zstdDecompress(byte[] in, int offset, int length, byte[] prefix, int rawLength) {
    ZstdDecompressCtx d = prefix == null ? ZSTD_IN.get() : ZSTD_IN_PREFIXED.get();
    if (prefix != null) {
      d.loadDict(prefix, ZstdDictContentType.RAW_CONTENT);
    }
    byte[] out = new byte[rawLength];
    int n;
    try {
      n = d.decompressByteArray(out, 0, rawLength, in, offset, length);
    } catch (RuntimeException e) {
      throw new CodecException("malformed zstd frame: " + e.getMessage());
    }
    if (n != rawLength) {
      throw new CodecException("zstd frame decodes to " + n + " bytes, the segment says " + rawLength);
    }
    return out;
  }
}
