package io.tcpopt.common.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs against a fake /proc/sys tree, so it never touches the host. */
class HostTuningTest {
  private static final WanSocketSettings S = WanSocketSettings.forLink(250_000_000L, Duration.ofMillis(200), true, "bbr");
  @TempDir Path proc;

  @BeforeEach
  void untunedHost() throws Exception {
    sysctl("net.ipv4.tcp_slow_start_after_idle", "1");
    sysctl("net.ipv4.tcp_min_rtt_wlen", "300");
    sysctl("net.ipv4.tcp_available_congestion_control", "reno cubic");
    sysctl("net.ipv4.tcp_rmem", "4096\t131072\t6291456");
    sysctl("net.ipv4.tcp_wmem", "4096\t16384\t4194304");
    sysctl("net.core.rmem_max", "212992");
    sysctl("net.core.wmem_max", "212992");
    sysctl("net.ipv4.ip_forward", "0");
  }

  @Test
  void reportsEverySettingThatHurtsAWanNode() {
    List<String> w = HostTuning.check(proc, S, true, false);
    assertTrue(has(w, "net.ipv4.tcp_slow_start_after_idle is 1"), w::toString);
    assertTrue(has(w, "net.ipv4.tcp_min_rtt_wlen is 300"), w::toString);
    assertTrue(has(w, "bbr is not in net.ipv4.tcp_available_congestion_control"), w::toString);
    assertTrue(has(w, "net.ipv4.tcp_rmem maximum is 6291456"), w::toString);
    assertTrue(has(w, "net.ipv4.tcp_wmem maximum is 4194304"), w::toString);
    assertTrue(has(w, "net.core.rmem_max is 212992"), w::toString);
    assertTrue(has(w, "net.ipv4.ip_forward is 0"), w::toString);
    assertEquals(8, w.size(), w::toString);
  }

  @Test
  void netAdminAndExplicitModeNeedFewerSettings() {
    List<String> w = HostTuning.check(proc, S, false, true);
    assertEquals(5, w.size(), w::toString);
  }

  @Test
  void applyRaisesWhatItCanAndNeverLowers() throws Exception {
    sysctl("net.core.wmem_max", "134217728");
    List<String> left = HostTuning.apply(proc, S, true, false);

    assertEquals("0", read("net.ipv4.tcp_slow_start_after_idle"));
    assertEquals(String.valueOf(HostTuning.MIN_RTT_WINDOW_SECONDS), read("net.ipv4.tcp_min_rtt_wlen"));
    // The receive buffer is 8 x the BDP (50 MB at 250 Mbit/s and 200 ms).
    assertEquals(50_000_000, S.receiveBufferBytes());
    assertEquals("4096\t131072\t" + S.receiveBufferBytes(), read("net.ipv4.tcp_rmem"));
    assertEquals(String.valueOf(S.receiveBufferBytes()), read("net.core.rmem_max"));
    assertEquals("134217728", read("net.core.wmem_max"));
    assertEquals("1", read("net.ipv4.ip_forward"));
    // A missing kernel module cannot be fixed by a sysctl write.
    assertEquals(1, left.size(), left::toString);
    assertTrue(left.get(0).contains("modprobe tcp_bbr"));
  }

  @Test
  void aShorterMinimumRttWindowIsKept() throws Exception {
    sysctl("net.ipv4.tcp_min_rtt_wlen", "5");
    assertFalse(has(HostTuning.check(proc, S, true, false), "tcp_min_rtt_wlen"));
    HostTuning.apply(proc, S, true, false);
    assertEquals("5", read("net.ipv4.tcp_min_rtt_wlen"));
  }

  private static boolean has(List<String> warnings, String text) {
    return warnings.stream().anyMatch(w -> w.contains(text));
  }

  private void sysctl(String name, String value) throws Exception {
    Path f = proc.resolve(name.replace('.', '/'));
    Files.createDirectories(f.getParent());
    Files.writeString(f, value + "\n");
  }

  private String read(String name) throws Exception {
    return Files.readString(proc.resolve(name.replace('.', '/'))).trim();
  }
}
