package io.tcpopt.cli.metrics;

import java.time.Duration;

/**
 * Bounds how long the JDK's built-in HTTP server (the metrics endpoint and the controller's web
 * console) keeps a connection that never delivers a request: without a limit it keeps one forever,
 * so a few thousand silent connections would hold as many file descriptors. The server reads its
 * limits once, from system properties, when its first instance is created; {@link #install} sets
 * them unless the operator already has ({@code -Dsun.net.httpserver.maxReqTime=SECONDS} in
 * JAVA_OPTS wins). The server checks them on a coarse timer: a silent connection is closed some
 * seconds after the limit (docs/reliability.md has the measured figure).
 */
public final class HttpServerTimeouts {
  /** Seconds a connection may take to deliver its request head. */
  static final String MAX_REQUEST_TIME = "sun.net.httpserver.maxReqTime";
  /** Seconds an idle keep-alive connection is kept between requests. */
  static final String IDLE_INTERVAL = "sun.net.httpserver.idleInterval";

  public static final Duration DEFAULT_REQUEST_TIME = Duration.ofSeconds(10);
  public static final Duration DEFAULT_IDLE = Duration.ofSeconds(30);

  private HttpServerTimeouts() {}

  /** Sets the defaults where the operator has not; call before the first HTTP server starts. */
  public static void install() {
    setIfAbsent(MAX_REQUEST_TIME, DEFAULT_REQUEST_TIME);
    setIfAbsent(IDLE_INTERVAL, DEFAULT_IDLE);
  }

  private static void setIfAbsent(String property, Duration value) {
    if (System.getProperty(property) == null) {
      System.setProperty(property, Long.toString(Math.max(1, value.toSeconds())));
    }
  }
}
