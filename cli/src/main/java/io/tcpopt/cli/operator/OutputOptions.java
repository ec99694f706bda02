package io.tcpopt.cli.operator;

import io.tcpopt.cli.output.OutputFormat;
import picocli.CommandLine.Option;

/** {@code -o table|json}. */
public final class OutputOptions {
  @Option(
      names = {"-o", "--output"},
      paramLabel = "FORMAT",
      description = "table (default) or json.")
  OutputFormat format = OutputFormat.table;

  public boolean json() {
    return format == OutputFormat.json;
  }
}
