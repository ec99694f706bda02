package io.tcpopt.cli.operator;

import io.tcpopt.common.net.HostPort;
import java.nio.file.Path;

/**
 * Where a controller listens and how to authenticate to it.
 *
 * @param token bearer token, or {@code null}
 * @param tls TLS settings, or {@code null} for plaintext gRPC
 */
public record ControllerTarget(String host, int port, String token, Tls tls) {
  /**
   * @param trusted CA certificates (PEM) the controller's certificate must chain to
   * @param certificate client certificate (PEM) for client-certificate authentication, or {@code null}
   * @param privateKey its private key (PEM), or {@code null}
   */
  public record Tls(Path trusted, Path certificate, Path privateKey) {}

  public ControllerTarget(String host, int port, String token) {
    this(host, port, token, null);
  }

  @Override
  public String toString() {
    return new HostPort(host, port).toString();
  }
}
