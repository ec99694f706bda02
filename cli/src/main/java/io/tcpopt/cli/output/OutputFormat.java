package io.tcpopt.cli.output;

/** The {@code -o} option: {@code table} (default, for people) or {@code json} (for scripts). */
public enum OutputFormat {
  table,
  json
}
