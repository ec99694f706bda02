package io.tcpopt.servicenode;

/** The node could not start (a port in use, missing permission, bad TLS material): one clear line. */
public final class ServiceNodeException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ServiceNodeException(String message, Throwable cause) {
    super(message, cause);
  }

  public ServiceNodeException(String message) {
    super(message);
  }
}
