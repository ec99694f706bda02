package io.tcpopt.common.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LinuxCapabilitiesTest {
  @Test
  void readsTheEffectiveSetFromAProcessStatus(@TempDir Path dir) throws Exception {
    Path status = dir.resolve("status");
    Files.writeString(status, "Name:\tjava\nCapInh:\t0000000000000000\nCapPrm:\t0000000000003000\nCapEff:\t0000000000002000\n");
    assertEquals(1L << LinuxCapabilities.CAP_NET_RAW, LinuxCapabilities.read(status));
    assertEquals(0, LinuxCapabilities.read(dir.resolve("missing")), "no /proc: no capabilities");
  }

  @Test
  void aTransparentSocketNeedsNetAdminOrNetRaw() {
    assertTrue(LinuxCapabilities.mayBindTransparent(1L << LinuxCapabilities.CAP_NET_ADMIN));
    assertTrue(LinuxCapabilities.mayBindTransparent(1L << LinuxCapabilities.CAP_NET_RAW));
    assertFalse(LinuxCapabilities.mayBindTransparent(0), "none");
    assertFalse(LinuxCapabilities.mayBindTransparent(~((1L << LinuxCapabilities.CAP_NET_ADMIN) | (1L << LinuxCapabilities.CAP_NET_RAW))),
        "every other capability");
  }
}
