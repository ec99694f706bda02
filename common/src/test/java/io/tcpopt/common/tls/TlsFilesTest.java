package io.tcpopt.common.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.common.config.ConfigException;
import io.tcpopt.common.config.ConfigTree;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TlsFilesTest {
  @TempDir static Path dir;
  private static Map<String, TlsFiles> nodes;

  @BeforeAll
  static void generate() {
    nodes = DemoCertificates.generate(dir, List.of("branch-1", "dc-1"));
  }

  private static ConfigTree tls(String certificate, String key, String trusted) {
    String yaml =
        "wan:\n  tls:\n    certificate: " + certificate + "\n    private-key: " + key + "\n    trusted: " + trusted + "\n";
    return ConfigTree.parse(yaml, "test.yaml").get("wan").get("tls");
  }

  @Test
  void readsGeneratedFilesRelativeToABaseDirectory() {
    TlsFiles files = TlsFiles.from(tls("branch-1.crt", "branch-1.key", "ca.crt"), dir);
    assertEquals(nodes.get("branch-1"), files);
  }

  @Test
  void missingCertificateNamesTheField() {
    ConfigException e = assertThrows(ConfigException.class, () -> TlsFiles.from(tls("nope.crt", "branch-1.key", "ca.crt"), dir));
    assertEquals("wan.tls.certificate", e.path());
    assertTrue(e.getMessage().contains("file not found"), e.getMessage());
  }

  @Test
  void garbagePrivateKeyNamesTheField() throws Exception {
    Files.writeString(dir.resolve("garbage.key"), "this is not a key\n");
    ConfigException e = assertThrows(ConfigException.class, () -> TlsFiles.from(tls("branch-1.crt", "garbage.key", "ca.crt"), dir));
    assertEquals("wan.tls.private-key", e.path());
  }

  @Test
  void garbageTrustedFileNamesTheField() throws Exception {
    Files.writeString(dir.resolve("garbage.crt"), "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n");
    ConfigException e = assertThrows(ConfigException.class, () -> TlsFiles.from(tls("branch-1.crt", "branch-1.key", "garbage.crt"), dir));
    assertEquals("wan.tls.trusted", e.path());
  }

  @Test
  void keyOfAnotherNodeIsRefused() {
    ConfigException e = assertThrows(ConfigException.class, () -> TlsFiles.from(tls("branch-1.crt", "dc-1.key", "ca.crt"), dir));
    assertEquals("wan.tls.private-key", e.path());
    assertTrue(e.getMessage().contains("does not match"), e.getMessage());
  }

  @Test
  void missingAndUnknownKeysAreErrors() {
    ConfigTree noTrusted = ConfigTree.parse("tls: { certificate: a, private-key: b }", "t").get("tls");
    assertEquals("tls.trusted", assertThrows(ConfigException.class, () -> TlsFiles.from(noTrusted, dir)).path());
    ConfigTree typo = ConfigTree.parse("tls: { certificate: a, private-key: b, trusted: c, trust: d }", "t").get("tls");
    assertEquals("tls.trust", assertThrows(ConfigException.class, () -> TlsFiles.from(typo, dir)).path());
  }

  @Test
  void privateKeysAreOwnerOnlyAndTheCaIsReused() throws Exception {
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("branch-1.key"))));
    String ca = Files.readString(dir.resolve("ca.crt"));
    TlsFiles added = DemoCertificates.generate(dir, List.of("branch-2")).get("branch-2");
    assertEquals(ca, Files.readString(dir.resolve("ca.crt")));
    assertEquals(added, TlsFiles.from(tls("branch-2.crt", "branch-2.key", "ca.crt"), dir));
  }

  @Test
  void badNodeNamesAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> DemoCertificates.generate(dir, List.of("bad name")));
    assertThrows(IllegalArgumentException.class, () -> DemoCertificates.generate(dir, List.of("../escape")));
    assertThrows(IllegalArgumentException.class, () -> DemoCertificates.generate(dir, List.of()));
  }
}
