package io.tcpopt.common.profile;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * TLS termination on the client leg at the intercepting node, as F5's client SSL profile: the node
 * presents the operator's certificate for the server's name, decrypts, and carries plaintext over
 * the (encrypted) inter-node session. With dynamic record sizing the records sent to the client
 * start small — one TCP segment each, so the browser can decrypt the first bytes as soon as their
 * segment arrives — and grow to full records once enough bytes went out; after an idle pause they
 * start small again. The built-in root is {@code clientssl} (no certificate: a usable profile names
 * one).
 *
 * <pre>
 * client-ssl-profiles:
 *   www: { certificate: /etc/tcpopt/tls/www.crt, private-key: /etc/tcpopt/tls/www.key }
 * </pre>
 *
 * @param certificate PEM certificate chain file for the server's name; null in a template profile
 * @param privateKey PEM private key file of that certificate, readable by its owner only
 * @param protocols the TLS versions offered to clients
 * @param dynamicRecordSizing {@code allow-dynamic-record-sizing}: small records first (F5 name)
 * @param smallRecordSize the size on the wire (header and overhead included) of a small record
 * @param threshold plaintext bytes sent in small records before records grow to full size
 * @param idleReset after this long without bytes to send, records start small again; zero = never
 * @param maximumRecordSize the plaintext bytes of a full record ({@code maximum-record-size}, F5 name)
 * @param handshakeTimeout a client that has not completed its handshake by then is reset
 */
public record ClientSslProfile(
    String name,
    String parent,
    String certificate,
    String privateKey,
    List<String> protocols,
    boolean dynamicRecordSizing,
    int smallRecordSize,
    long threshold,
    Duration idleReset,
    int maximumRecordSize,
    Duration handshakeTimeout) {
  public static final String ROOT = "clientssl";

  /**
   * Bytes a record adds to its plaintext at most, header included, with the providers tcpopt uses:
   * BoringSSL adds 29 (5 header, 8 explicit nonce, 16 tag: TLS 1.2 AES-GCM) or 22 (TLS 1.3), the
   * JDK's TLS 1.3 up to 38 (it pads small records); 40 leaves a margin.
   */
  public static final int RECORD_OVERHEAD = 40;

  /** The largest plaintext of one TLS record (2^14). */
  public static final int MAX_PLAINTEXT = 16384;

  public static final ProfileKind<ClientSslProfile> KIND =
      new ProfileKind<>(
          "client-ssl-profiles",
          "client-ssl",
          ROOT,
          List.of(
              ProfileField.path("certificate"),
              ProfileField.path("private-key"),
              ProfileField.tlsProtocols("protocols"),
              ProfileField.bool("allow-dynamic-record-sizing"),
              ProfileField.bytes("dynamic-record-small-size", 512, MAX_PLAINTEXT + RECORD_OVERHEAD),
              ProfileField.bytes("dynamic-record-threshold", 0, 1L << 30),
              ProfileField.duration("dynamic-record-idle-timeout", Duration.ofMillis(10), true),
              ProfileField.bytes("maximum-record-size", 512, MAX_PLAINTEXT),
              ProfileField.duration("handshake-timeout", Duration.ofMillis(100), false)),
          rootValues(),
          ClientSslProfile::build);

  private static Map<String, Object> rootValues() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("certificate", null);
    m.put("private-key", null);
    m.put("protocols", List.of("TLSv1.2", "TLSv1.3"));
    m.put("allow-dynamic-record-sizing", true);
    m.put("dynamic-record-small-size", 1400L); // one 1460-byte MSS with TCP timestamps, and a margin
    m.put("dynamic-record-threshold", 1L << 20); // 1MiB, as Google's servers do
    m.put("dynamic-record-idle-timeout", Duration.ofSeconds(1));
    m.put("maximum-record-size", (long) MAX_PLAINTEXT);
    m.put("handshake-timeout", Duration.ofSeconds(10));
    return m;
  }

  private static ClientSslProfile build(String name, String parent, ProfileKind.Values v, java.util.function.BiConsumer<String, String> errors) {
    String cert = v.get("certificate");
    String key = v.get("private-key");
    if ((cert == null) != (key == null)) {
      errors.accept(cert == null ? "certificate" : "private-key", "is required with " + (cert == null ? "private-key" : "certificate"));
      return null;
    }
    int small = (int) (long) v.<Long>get("dynamic-record-small-size");
    int maximum = (int) (long) v.<Long>get("maximum-record-size");
    if (small - RECORD_OVERHEAD > maximum) {
      String field = v.setHere("maximum-record-size") && !v.setHere("dynamic-record-small-size") ? "maximum-record-size" : "dynamic-record-small-size";
      errors.accept(field, "dynamic-record-small-size " + small + " holds more plaintext than maximum-record-size " + maximum);
      return null;
    }
    return new ClientSslProfile(name, parent, cert, key, v.get("protocols"), v.get("allow-dynamic-record-sizing"), small,
        v.get("dynamic-record-threshold"), v.get("dynamic-record-idle-timeout"), maximum, v.get("handshake-timeout"));
  }

  public ClientSslProfile {
    Objects.requireNonNull(name, "name");
    protocols = List.copyOf(protocols);
    Objects.requireNonNull(idleReset, "idleReset");
    Objects.requireNonNull(handshakeTimeout, "handshakeTimeout");
  }

  /** The built-in {@code clientssl} profile (no certificate). */
  public static ClientSslProfile clientssl() {
    return KIND.builtIn();
  }

  /** Whether the profile names a certificate and key, i.e. can terminate TLS. */
  public boolean hasCertificate() {
    return certificate != null && privateKey != null;
  }

  /** The plaintext of one small record: {@link #smallRecordSize} less the largest record overhead. */
  public int smallRecordPlaintext() {
    return smallRecordSize - RECORD_OVERHEAD;
  }
}
