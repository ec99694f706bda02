package io.tcpopt.controller.policy;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * One stored, immutable policy version as kept in the cluster (as Compact data, {@link PolicySerializers}).
 *
 * @param version number, from 1, strictly growing
 * @param name the data-policy name
 * @param yaml the document exactly as applied
 * @param appliedBy controller that stored it
 * @param appliedAtMillis wall-clock time of the apply
 * @param comment operator comment, or {@code rollback to vN}
 */
public record PolicyVersion(
    long version, String name, String yaml, String appliedBy, long appliedAtMillis, String comment) {

  /** Hex SHA-256 of the YAML text. */
  public String sha256() {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(yaml.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
