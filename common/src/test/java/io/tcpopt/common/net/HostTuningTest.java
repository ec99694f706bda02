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
  void aShorterMinimumRttWindowIsKept() throws Exception {
    sysctl("net.ipv4.tcp_min_rtt_wlen", "5");
    assertFalse(has(HostTuning.check(proc, S, true, false), "tcp_min_rtt_wlen"));
  }

  private static boolean has(List<String> warnings, String text) {
    return warnings.stream().anyMatch(w -> w.contains(text));
  }

  private void sysctl(String name, String value) throws Exception {
    Path f = proc.resolve(name.replace('.', '/'));
    Files.createDirectories(f.getParent());
    Files.writeString(f, value + "\n");
  }
}
