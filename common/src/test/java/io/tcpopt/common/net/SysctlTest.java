package io.tcpopt.common.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SysctlTest {
  /** Numeric settings, whose files answer only a read from offset 0; compared with what cat(1) prints. */
  @Test
  void readsAWholeNumericSettingOfTheRunningKernel() throws Exception {
    for (String name : new String[] {"net.ipv4.ip_local_port_range", "net.ipv4.tcp_rmem", "net.ipv4.tcp_min_rtt_wlen"}) {
      Process cat = new ProcessBuilder("cat", Sysctl.file(Sysctl.PROC_SYS, name).toString()).start();
      String expected = new String(cat.getInputStream().readAllBytes()).trim();
      assertEquals(0, cat.waitFor());
      assertTrue(expected.length() > 1, name + " reads " + expected);
      assertEquals(Optional.of(expected), Sysctl.read(Sysctl.PROC_SYS, name), name);
    }
  }

  @Test
  void readsATreeOnDiskAndAMissingSettingIsEmpty(@TempDir Path dir) throws Exception {
    Files.createDirectories(dir.resolve("net/ipv4"));
    Files.writeString(dir.resolve("net/ipv4/tcp_rmem"), "4096\t131072\t6291456\n");
    assertEquals(Optional.of("4096\t131072\t6291456"), Sysctl.read(dir, "net.ipv4.tcp_rmem"));
    assertEquals(Optional.empty(), Sysctl.read(dir, "net.ipv4.tcp_wmem"));
  }
}
