package io.tcpopt.controller.console;

import io.tcpopt.common.config.ConfigTree;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code controller.console:} section: the operator web console. Off unless the section is
 * present.
 *
 * <pre>
 * controller:
 *   listen: 127.0.0.1:7700
 *   console:                   # present = on (default: no console)
 *     listen: 127.0.0.1:7780   # default: controller.listen's address, port 7780; port 0 allowed
 * </pre>
 *
 * <p>The console listens on the same address family as the gRPC API (IPv4 or IPv6), serves HTTPS
 * when {@code controller.tls} is set (same certificate, same trusted CA for client certificates),
 * and accepts the same operator credentials.
 *
 * @param listen where the console listens
 */
public record ConsoleConfig(InetSocketAddress listen) {
  public static final int DEFAULT_PORT = 7780;

  /** Reads {@code controller.console}; empty when absent. {@code apiListen} is {@code controller.listen}. */
  public static Optional<ConsoleConfig> from(ConfigTree controller, InetSocketAddress apiListen) {
    if (!(controller.raw() instanceof Map<?, ?> keys) || !keys.containsKey("console")) {
      return Optional.empty();
    }
    ConfigTree section = controller.section("console").requireOnly("listen");
    InetSocketAddress listen = section.has("listen")
        ? section.socketAddress("listen")
        : new InetSocketAddress(apiListen.getAddress(), DEFAULT_PORT);
    boolean apiV4 = apiListen.getAddress() instanceof Inet4Address;
    if ((listen.getAddress() instanceof Inet4Address) != apiV4) {
      throw section.get("listen").error("must be an " + (apiV4 ? "IPv4" : "IPv6") + " address, like controller.listen ("
          + apiListen.getHostString() + ")");
    }
    return Optional.of(new ConsoleConfig(listen));
  }
}
