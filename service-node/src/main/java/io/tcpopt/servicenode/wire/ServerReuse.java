package io.tcpopt.servicenode.wire;

import io.tcpopt.common.profile.HttpReuseProfile;
import java.time.Duration;

/**
 * The HTTP server-reuse profile an OPEN carries (open-flags bit 11, docs/wire-format.md §5.2): the
 * opener's policy asks the far node to send the flow's requests on pooled server connections with
 * these settings. A block of its own, versioned and bounded: {@code version u8, length u8} then
 * {@code length} bytes (at most {@value #MAX_BODY}); version 1 is {@value #BODY_V1} bytes — source
 * mask bits (u8), max-size (u32), max-age in ms (u32), max-reuse (u32), idle-timeout in ms (u32).
 *
 * <p>A block of another version is skipped by its length and kept as {@link #understood() not
 * understood}: the far node serves the flow without it. Out-of-range fields of a version-1 block
 * are a connection error (PROTOCOL_ERROR) at the decoder; what the far node then honours (within
 * its own maxima) is decided outside the wire package.
 *
 * @param version the block's version; only {@value #VERSION} is {@link #understood()}
 */
public record ServerReuse(int version, int sourceMaskBits, int maxSize, long maxAgeMillis, int maxReuse, long idleTimeoutMillis) {
  public static final int VERSION = 1;
  /** Bytes of a version-1 block after its version and length. */
  public static final int BODY_V1 = 1 + 4 + 4 + 4 + 4;
  /** The largest body any version may have: a receiver refuses longer blocks. */
  public static final int MAX_BODY = 64;
  /** Bytes this implementation adds to an OPEN for the block it sends (version 1). */
  public static final int ENCODED_LENGTH = 2 + BODY_V1;

  public static final int MAX_MASK_BITS = 32;
  public static final int MIN_MAX_SIZE = 1;
  public static final int MAX_MAX_SIZE = 1_000_000;
  public static final long MIN_MAX_AGE_MILLIS = 1_000;
  public static final int MIN_MAX_REUSE = 1;
  public static final int MAX_MAX_REUSE = 1_000_000_000;
  public static final long MIN_IDLE_TIMEOUT_MILLIS = 100;
  /** Durations are u32 milliseconds (about 49.7 days at most). */
  public static final long MAX_MILLIS = 0xffff_ffffL;

  public ServerReuse {
    if (version < 0 || version > 255) {
      throw new IllegalArgumentException("server-reuse version " + version + " is not a u8");
    }
    if (version == VERSION) {
      String problem = problem(sourceMaskBits, maxSize, maxAgeMillis, maxReuse, idleTimeoutMillis);
      if (problem != null) {
        throw new IllegalArgumentException(problem);
      }
    }
  }

  /** A block of a version this node does not speak (its body skipped). */
  public static ServerReuse notUnderstood(int version) {
    if (version == VERSION) {
      throw new IllegalArgumentException("version " + VERSION + " is understood");
    }
    return new ServerReuse(version, 0, 0, 0, 0, 0);
  }

  /** The block for {@code profile}; durations beyond the u32 range are sent as its maximum. */
  public static ServerReuse of(HttpReuseProfile profile) {
    return new ServerReuse(VERSION, profile.sourceMaskBits(), Math.min(profile.maxSize(), MAX_MAX_SIZE), millis(profile.maxAge()),
        Math.min(profile.maxReuse(), MAX_MAX_REUSE), millis(profile.idleTimeout()));
  }

  private static long millis(Duration d) {
    return d.compareTo(Duration.ofMillis(MAX_MILLIS)) >= 0 ? MAX_MILLIS : d.toMillis();
  }

  /** Whether this node can use the block (version 1). */
  public boolean understood() {
    return version == VERSION;
  }

  /**
   * Why version-1 fields are outside what the wire allows, or null: each within the range an
   * {@code http-reuse} profile may have (docs/wire-format.md §5.2).
   */
  static String problem(int sourceMaskBits, long maxSize, long maxAgeMillis, long maxReuse, long idleTimeoutMillis) {
    if (sourceMaskBits < 0 || sourceMaskBits > MAX_MASK_BITS) {
      return "server-reuse source mask of " + sourceMaskBits + " bits (0..32)";
    }
    if (maxSize < MIN_MAX_SIZE || maxSize > MAX_MAX_SIZE) {
      return "server-reuse max-size " + maxSize + " (1..1000000)";
    }
    if (maxAgeMillis < MIN_MAX_AGE_MILLIS || maxAgeMillis > MAX_MILLIS) {
      return "server-reuse max-age " + maxAgeMillis + " ms (at least 1000)";
    }
    if (maxReuse < MIN_MAX_REUSE || maxReuse > MAX_MAX_REUSE) {
      return "server-reuse max-reuse " + maxReuse + " (1..1000000000)";
    }
    if (idleTimeoutMillis < MIN_IDLE_TIMEOUT_MILLIS || idleTimeoutMillis > MAX_MILLIS) {
      return "server-reuse idle-timeout " + idleTimeoutMillis + " ms (at least 100)";
    }
    return null;
  }

  /** Bytes of the block on the wire, its version and length included. */
  public int encodedLength() {
    return 2 + (understood() ? BODY_V1 : 0);
  }

  @Override
  public String toString() {
    return understood()
        ? "source-mask /" + sourceMaskBits + ", max-size " + maxSize + ", max-age " + maxAgeMillis + "ms, max-reuse " + maxReuse + ", idle-timeout "
            + idleTimeoutMillis + "ms"
        : "server-reuse block of version " + version;
  }
}
