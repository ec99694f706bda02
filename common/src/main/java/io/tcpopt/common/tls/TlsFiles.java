package io.tcpopt.common.tls;

import io.tcpopt.common.config.ConfigTree;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Objects;

/**
 * The PEM files of one node's mutual TLS identity.
 *
 * <pre>
 * tls:
 *   certificate: certs/branch-1.crt   # this node's certificate (chain), PEM
 *   private-key: certs/branch-1.key   # its private key, PEM (PKCS#8, or SEC1/PKCS#1), unencrypted
 *   trusted: certs/ca.crt             # the CA(s) whose certificates peers must present, PEM
 * </pre>
 *
 * @param certificateChain this node's certificate, optionally followed by intermediates
 * @param privateKey the private key of the first certificate
 * @param trustedCertificates the CA certificates a peer's certificate must chain to
 */
public record TlsFiles(Path certificateChain, Path privateKey, Path trustedCertificates) {

  public TlsFiles {
    Objects.requireNonNull(certificateChain, "certificateChain");
    Objects.requireNonNull(privateKey, "privateKey");
    Objects.requireNonNull(trustedCertificates, "trustedCertificates");
  }

  /**
   * Reads a {@code tls:} section; relative paths resolve against the working directory. Each file
   * must exist and parse, and the key must belong to the certificate; otherwise one {@link
   * io.tcpopt.common.config.ConfigException} names the field.
   */
  public static TlsFiles from(ConfigTree section) {
    return from(section, Path.of(""));
  }

  /** As {@link #from(ConfigTree)}, resolving relative paths against {@code baseDirectory} (e.g. the config file's directory). */
  public static TlsFiles from(ConfigTree section, Path baseDirectory) {
    section.requireOnly("certificate", "private-key", "trusted");
    Path certificate = baseDirectory.resolve(section.string("certificate"));
    Path key = baseDirectory.resolve(section.string("private-key"));
    Path trusted = baseDirectory.resolve(section.string("trusted"));

    List<X509Certificate> chain = check(section.get("certificate"), certificate, PemMaterial::certificates);
    PrivateKey privateKey = check(section.get("private-key"), key, PemMaterial::privateKey);
    check(section.get("private-key"), key, k -> {
      PemMaterial.requireMatch(privateKey, chain.get(0));
      return null;
    });
    check(section.get("trusted"), trusted, PemMaterial::certificates);
    return new TlsFiles(certificate, key, trusted);
  }

  private interface Reader<T> {
    T read(Path file);
  }

  private static <T> T check(ConfigTree field, Path file, Reader<T> reader) {
    try {
      return reader.read(file);
    } catch (IllegalArgumentException e) {
      throw field.error(file + ": " + e.getMessage());
    }
  }
}
