package io.tcpopt.common.units;

import java.time.Duration;

/** Human-readable sizes, rates and durations for tables and pages (JSON keeps raw numbers). */
public final class Units {
  private Units() {}

  /** {@code 1536} → {@code 1.5KiB}. */
  public static String bytes(long n) {
    if (n < 1024) {
      return n + "B";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB"};
    double v = n;
    int u = -1;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return format(v) + units[u];
  }

  private static String format(double v) {
    return v >= 100 || v == Math.rint(v) ? String.format("%.0f", v) : String.format("%.1f", v);
  }

  /** Bits per second → {@code 12.3Mbit/s}. */
  public static String bitsPerSecond(double bps) {
    if (bps < 1000) {
      return String.format("%.0fbit/s", bps);
    }
    String[] units = {"kbit/s", "Mbit/s", "Gbit/s"};
    double v = bps;
    int u = -1;
    while (v >= 1000 && u < units.length - 1) {
      v /= 1000;
      u++;
    }
    return format(v) + units[u];
  }

  /** Microseconds → {@code 12.3ms}; negative or zero means unknown. */
  public static String micros(long us) {
    if (us <= 0) {
      return "-";
    }
    return us < 10_000 ? String.format("%.1fms", us / 1000.0) : String.format("%.0fms", us / 1000.0);
  }

  /** {@code 3725s} → {@code 1h02m05s}. */
  public static String duration(Duration d) {
    long s = Math.max(0, d.toSeconds());
    if (s < 60) {
      return d.toMillis() < 10_000 ? String.format("%.1fs", d.toMillis() / 1000.0) : s + "s";
    }
    if (s < 3600) {
      return String.format("%dm%02ds", s / 60, s % 60);
    }
    return String.format("%dh%02dm%02ds", s / 3600, (s % 3600) / 60, s % 60);
  }
}
