package io.tcpopt.cli.node;

/**
 * Turns on the data plane's one-line flow open/close log. The flow table logs at DEBUG under
 * {@code io.tcpopt.servicenode.flow}; slf4j-simple reads a logger's level when the logger is
 * created, so this must run before the first service node starts. The same can be had without the
 * option: {@code JAVA_OPTS=-Dorg.slf4j.simpleLogger.log.io.tcpopt.servicenode.flow=debug}.
 */
public final class FlowLogging {
  static final String PROPERTY = "org.slf4j.simpleLogger.log.io.tcpopt.servicenode.flow";

  private FlowLogging() {}

  public static void enable() {
    System.setProperty(PROPERTY, "debug");
  }
}
