package io.tcpopt.controller.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.common.config.ConfigException;
import io.tcpopt.common.config.ConfigTree;
import io.tcpopt.controller.ControllerConfig;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/** {@code controller.console}: off unless present, defaults beside the API, same address family. */
class ConsoleConfigTest {
  private static ControllerConfig parse(String yaml) {
    return ControllerConfig.from(ConfigTree.parse(yaml, "test").get("controller"), "ctl", "branch");
  }

  @Test
  void offUnlessPresent() {
    assertTrue(parse("controller: {listen: 127.0.0.1:7700}").console().isEmpty());
  }

  @Test
  void presentWithoutSettingsListensBesideTheApiOnPort7780() {
    assertEquals(new InetSocketAddress("127.0.0.2", 7780), parse("controller: {listen: 127.0.0.2:7700, console: {}}").console().orElseThrow().listen());
    assertEquals(new InetSocketAddress("127.0.0.1", 7780), parse("controller:\n  console:\n").console().orElseThrow().listen(),
        "an empty console: key turns it on too");
  }

  @Test
  void listenIsConfigurable() {
    assertEquals(new InetSocketAddress("127.0.0.1", 0), parse("controller: {console: {listen: 127.0.0.1:0}}").console().orElseThrow().listen());
  }

  @Test
  void otherAddressFamilyOrUnknownKeysAreOneClearError() {
    ConfigException family = assertThrows(ConfigException.class, () -> parse("controller: {listen: 127.0.0.1:7700, console: {listen: \"[::1]:7780\"}}"));
    assertEquals("controller.console.listen: must be an IPv4 address, like controller.listen (127.0.0.1)", family.getMessage());
    ConfigException unknown = assertThrows(ConfigException.class, () -> parse("controller: {console: {port: 1}}"));
    assertEquals("controller.console.port: unknown setting (expected one of listen)", unknown.getMessage());
  }
}
