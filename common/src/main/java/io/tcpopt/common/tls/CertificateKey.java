package io.tcpopt.common.tls;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Set;

/**
 * A certificate chain and its private key read from PEM files, for TLS that tcpopt terminates on
 * behalf of a server (a client-SSL profile). The key file must be readable by its owner only: a
 * key file that group or others can read is refused before it is parsed. Failures are one line
 * naming the file and never contain key material.
 *
 * @param chain the certificate, then any intermediates
 */
public record CertificateKey(List<X509Certificate> chain, PrivateKey key) {
  public CertificateKey {
    chain = List.copyOf(chain);
  }

  /**
   * Reads and checks the pair.
   *
   * @throws IllegalArgumentException naming the file: missing, unreadable, not PEM, too open,
   *     or a key that does not belong to the certificate
   */
  public static CertificateKey load(Path certificate, Path privateKey) {
    requireOwnerOnly(privateKey);
    return read(certificate, privateKey);
  }

  /**
   * Reads and checks the pair as {@link #load} does, without the key file's permissions: for
   * credentials handed to a library that would otherwise fail only at the handshake, in its own
   * words (the CLI's controller connection).
   *
   * @throws IllegalArgumentException naming the file: missing, unreadable, not PEM, or a key that
   *     does not belong to the certificate
   */
  public static CertificateKey read(Path certificate, Path privateKey) {
    List<X509Certificate> chain = read(certificate, PemMaterial::certificates);
    PrivateKey key = read(privateKey, PemMaterial::privateKey);
    read(privateKey, k -> {
      PemMaterial.requireMatch(key, chain.get(0));
      return null;
    });
    return new CertificateKey(chain, key);
  }

  /** The CA certificates of a PEM file (at least one). */
  public static List<X509Certificate> trusted(Path file) {
    return read(file, PemMaterial::certificates);
  }

  /** Refuses a key file that its group or other users can read (POSIX file systems only). */
  public static void requireOwnerOnly(Path keyFile) {
    Set<PosixFilePermission> permissions;
    try {
      permissions = Files.getPosixFilePermissions(keyFile);
    } catch (UnsupportedOperationException e) {
      return; // no POSIX permissions to check on this file system
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException(keyFile + ": file not found");
    } catch (IOException e) {
      throw new IllegalArgumentException(keyFile + ": cannot read its permissions: " + e.getMessage());
    }
    if (permissions.contains(PosixFilePermission.GROUP_READ) || permissions.contains(PosixFilePermission.OTHERS_READ)) {
      throw new IllegalArgumentException(keyFile + ": private key is readable by group or others (" + PosixFilePermissions.toString(permissions)
          + "); allow its owner only: chmod 600 " + keyFile);
    }
  }

  private interface Reader<T> {
    T read(Path file);
  }

  private static <T> T read(Path file, Reader<T> reader) {
    try {
      return reader.read(file);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
    }
  }
}
