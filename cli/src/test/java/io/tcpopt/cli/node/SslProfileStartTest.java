package io.tcpopt.cli.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.tcpopt.cli.CliRun;
import io.tcpopt.common.tls.DemoCertificates;
import io.tcpopt.common.tls.TlsFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A node whose bootstrap policy terminates TLS checks the key files at start: one clear line, nothing secret. */
class SslProfileStartTest {
  @TempDir Path dir;

  @Test
  void aKeyGroupOrOthersCanReadStopsTheStartNamingProfileAndFile() throws Exception {
    TlsFiles f = DemoCertificates.generate(dir, List.of("www.example.test")).get("www.example.test");
    Files.setPosixFilePermissions(f.privateKey(), PosixFilePermissions.fromString("rw-r--r--"));
    Path file = dir.resolve("node.yaml");
    Files.writeString(file, "node: {name: n, site: b, roles: [service-node]}\n"
        + "service-node: {wan: {listen: 127.0.0.1:0, plaintext: true}}\n"
        + "policy:\n"
        + "  service-node-groups: { G: { site: b } }\n"
        + "  client-ssl-profiles: { www: { certificate: '" + f.certificateChain() + "', private-key: '" + f.privateKey() + "' } }\n"
        + "  data-policy: { sequences: [ { seq: 1, action: { optimize: { service-node-group: G, client-ssl: www } } } ] }\n");
    CliRun r = CliRun.run(target -> {
      throw new AssertionError("run must not connect as a client");
    }, "run", "--config", file.toString());
    assertEquals(1, r.exitCode());
    assertEquals("tcpopt: policy: client-ssl profile www: " + f.privateKey() + ": private key is readable by group or others (rw-r--r--); "
        + "allow its owner only: chmod 600 " + f.privateKey(), r.errorLine());
    assertFalse(r.err().contains("PRIVATE KEY") || r.out().contains("PRIVATE KEY"));
  }
}
