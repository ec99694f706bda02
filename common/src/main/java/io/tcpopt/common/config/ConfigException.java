package io.tcpopt.common.config;

/**
 * A user error in a configuration or policy document: names the field path and the reason, so
 * that the launcher can print it as one line (for example {@code service-node.wan.peers[0].address:
 * expected HOST:PORT, got "dc"}).
 */
public final class ConfigException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String path;
  private final String reason;

  public ConfigException(String path, String reason) {
    super(path.isEmpty() ? reason : path + ": " + reason);
    this.path = path;
    this.reason = reason;
  }

  /** The dotted field path, with list indexes in brackets; empty for the document itself. */
  public String path() {
    return path;
  }

  /** Why the value was refused, without the path. */
  public String reason() {
    return reason;
  }
}
