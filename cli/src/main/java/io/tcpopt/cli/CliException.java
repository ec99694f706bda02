package io.tcpopt.cli;

/**
 * An error the CLI reports as one line {@code tcpopt: <message>} with the given exit code (2 for
 * usage errors, 1 for everything that went wrong at run time). Never printed with a stack trace.
 */
public final class CliException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public static final int RUNTIME = 1;
  public static final int USAGE = 2;

  private final int exitCode;

  public CliException(String message) {
    this(message, RUNTIME);
  }

  public CliException(String message, int exitCode) {
    super(message);
    this.exitCode = exitCode;
  }

  public CliException(String message, Throwable cause) {
    super(message, cause);
    this.exitCode = RUNTIME;
  }

  public int exitCode() {
    return exitCode;
  }
}
