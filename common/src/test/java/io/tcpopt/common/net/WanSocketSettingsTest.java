package io.tcpopt.common.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class WanSocketSettingsTest {
  @Test
  void sendAndReceiveBuffersAreEightTimesTheBandwidthDelayProduct() {
    WanSocketSettings s = WanSocketSettings.forLink(250_000_000L, Duration.ofMillis(200), true, "bbr");
    // 250 Mbit/s = 31.25 MB/s; x 0.2 s = 6.25 MB; x 8
    assertEquals(50_000_000, s.sendBufferBytes());
    assertEquals(50_000_000, s.receiveBufferBytes());
    assertEquals(30_000_000L, s.pacingRateBytesPerSecond(), "96% of the link: the payload of packets that fill 99.5% of it");
    assertEquals("bbr", s.congestionControl());
  }

  @Test
  void buffersAreClampedAndPacingIsOptional() {
    WanSocketSettings lan = WanSocketSettings.forLink(1_000_000_000L, Duration.ZERO, false, "cubic");
    assertEquals(WanSocketSettings.MIN_BUFFER, lan.sendBufferBytes());
    assertEquals(WanSocketSettings.MIN_BUFFER, lan.receiveBufferBytes());
    assertEquals(0, lan.pacingRateBytesPerSecond());
    WanSocketSettings fat = WanSocketSettings.forLink(10_000_000_000L, Duration.ofSeconds(1), true, "bbr");
    assertEquals(WanSocketSettings.MAX_BUFFER, fat.receiveBufferBytes());
  }

  @Test
  void nonsenseIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> WanSocketSettings.forLink(0, Duration.ofMillis(10), true, "bbr"));
    assertThrows(IllegalArgumentException.class, () -> WanSocketSettings.forLink(1000, Duration.ofMillis(-1), true, "bbr"));
    assertThrows(IllegalArgumentException.class, () -> WanSocketSettings.forLink(1000, Duration.ofMillis(10), true, "b b r"));
    assertThrows(IllegalArgumentException.class, () -> new WanSocketSettings("bbr", 0, 1, 0));
  }
}
