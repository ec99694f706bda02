package io.tcpopt.common.profile;

import java.time.Duration;

/** Formats sizes and durations in the units {@link io.tcpopt.common.config.ConfigTree} reads back. */
final class Sizes {
  private Sizes() {}

  static String format(long bytes) {
    if (bytes != 0 && bytes % (1L << 30) == 0) {
      return bytes / (1L << 30) + "GiB";
    }
    if (bytes != 0 && bytes % (1L << 20) == 0) {
      return bytes / (1L << 20) + "MiB";
    }
    if (bytes != 0 && bytes % (1L << 10) == 0) {
      return bytes / (1L << 10) + "KiB";
    }
    return Long.toString(bytes);
  }

  static String formatDurationOrOff(Duration d) {
    if (d.isZero()) {
      return "off";
    }
    long millis = d.toMillis();
    if (millis % 3_600_000 == 0) {
      return millis / 3_600_000 + "h";
    }
    if (millis % 60_000 == 0) {
      return millis / 60_000 + "m";
    }
    if (millis % 1_000 == 0) {
      return millis / 1_000 + "s";
    }
    return millis + "ms";
  }
}
