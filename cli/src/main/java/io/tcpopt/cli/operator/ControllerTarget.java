package io.tcpopt.cli.operator;

/** Where a controller listens and the bearer token to present ({@code null} when none). */
public record ControllerTarget(String host, int port, String token) {
  @Override
  public String toString() {
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
  }
}
