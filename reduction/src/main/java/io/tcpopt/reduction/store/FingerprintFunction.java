package io.tcpopt.reduction.store;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Names a chunk. Both ends of a session must use the same function for references to hit (a
 * mismatch costs hits, never correctness). Injectable so that a test build can force collisions:
 * the engine stays byte-exact because references are also checked by length and CRC-32C.
 */
@FunctionalInterface
public interface FingerprintFunction {
  Fingerprint of(byte[] data, int offset, int length);

  /** The first 16 bytes of SHA-256: the production function. Thread-safe. */
  FingerprintFunction SHA256_128 = new FingerprintFunction() {
    private final ThreadLocal<MessageDigest> digests = ThreadLocal.withInitial(FingerprintFunction::sha256);

    @Override
    public Fingerprint of(byte[] data, int offset, int length) {
      MessageDigest d = digests.get();
      d.update(data, offset, length);
      return Fingerprint.read(d.digest(), 0);
    }

    @Override
    public String toString() {
      return "sha256-128";
    }
  };

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no SHA-256", e);
    }
  }
}
