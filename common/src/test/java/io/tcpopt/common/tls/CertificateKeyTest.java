package io.tcpopt.common.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CertificateKeyTest {
  @TempDir Path dir;

  @Test
  void loadsAPairWhoseKeyOnlyItsOwnerReads() {
    TlsFiles f = DemoCertificates.generate(dir, List.of("www.example.test")).get("www.example.test");
    CertificateKey pair = CertificateKey.load(f.certificateChain(), f.privateKey());
    assertEquals(1, pair.chain().size());
    assertEquals(1, CertificateKey.trusted(f.trustedCertificates()).size());
  }

  @Test
  void refusesAKeyGroupOrOthersCanReadWithoutShowingIt() throws Exception {
    TlsFiles f = DemoCertificates.generate(dir, List.of("www.example.test")).get("www.example.test");
    Files.setPosixFilePermissions(f.privateKey(), PosixFilePermissions.fromString("rw-r--r--"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CertificateKey.load(f.certificateChain(), f.privateKey()));
    assertEquals(f.privateKey() + ": private key is readable by group or others (rw-r--r--); allow its owner only: chmod 600 " + f.privateKey(),
        e.getMessage());
    assertFalse(e.getMessage().contains("PRIVATE KEY"));
    Files.setPosixFilePermissions(f.privateKey(), PosixFilePermissions.fromString("rw-r-----"));
    assertThrows(IllegalArgumentException.class, () -> CertificateKey.load(f.certificateChain(), f.privateKey()));
  }

  @Test
  void namesTheFileThatIsWrong() throws Exception {
    TlsFiles a = DemoCertificates.generate(dir.resolve("a"), List.of("a.example")).get("a.example");
    TlsFiles b = DemoCertificates.generate(dir.resolve("b"), List.of("b.example")).get("b.example");
    IllegalArgumentException mismatch = assertThrows(IllegalArgumentException.class, () -> CertificateKey.load(a.certificateChain(), b.privateKey()));
    assertTrue(mismatch.getMessage().startsWith(b.privateKey() + ": "), mismatch.getMessage());
    Path missing = dir.resolve("none.key");
    assertEquals(missing + ": file not found",
        assertThrows(IllegalArgumentException.class, () -> CertificateKey.load(a.certificateChain(), missing)).getMessage());
    Files.writeString(dir.resolve("junk.crt"), "junk");
    assertTrue(assertThrows(IllegalArgumentException.class, () -> CertificateKey.load(dir.resolve("junk.crt"), a.privateKey()))
        .getMessage().startsWith(dir.resolve("junk.crt") + ": "));
  }
}
