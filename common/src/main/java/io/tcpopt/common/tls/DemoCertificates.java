package io.tcpopt.common.tls;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Generates a throw-away private CA and one certificate per node, for the demo, the testbed and
 * tests. Keys are EC P-256, stored unencrypted as PKCS#8 PEM with mode 600; node certificates
 * carry serverAuth and clientAuth and name the node, {@code localhost} and {@code 127.0.0.1}.
 *
 * <p>Layout of {@code dir}: {@code ca.crt}, {@code ca.key}, {@code NODE.crt}, {@code NODE.key}. An
 * existing {@code ca.crt}/{@code ca.key} pair in {@code dir} is reused, so nodes can be added to a
 * running deployment later; node files are always rewritten.
 *
 * <p>Operator certificates ({@link #generateOperators}) come from a second, separate CA ({@code
 * operator-ca.crt}, {@code operator-ca.key}) and carry clientAuth only and no DNS name: a
 * controller lists that CA as {@code controller.operator-ca}, which is how it tells an operator's
 * certificate from a node's. A node certificate can never act as an operator, whatever it names.
 */
public final class DemoCertificates {
  private static final Pattern NODE_NAME = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*");
  private static final Duration CA_VALIDITY = Duration.ofDays(3650);
  private static final Duration NODE_VALIDITY = Duration.ofDays(825);
  private static final Duration BACKDATE = Duration.ofHours(1);
  private static final String SIGNATURE = "SHA256withECDSA";
  private static final SecureRandom RANDOM = new SecureRandom();

  private DemoCertificates() {}

  /**
   * Writes the CA and one certificate per node into {@code dir} (created if needed) and returns
   * each node's files, in the order given.
   *
   * @throws IllegalArgumentException for an empty list, a name that is not a DNS name, or an
   *     existing {@code ca.crt}/{@code ca.key} that cannot be used
   * @throws UncheckedIOException when the directory or a file cannot be written
   */
  public static Map<String, TlsFiles> generate(Path dir, List<String> nodeNames) {
    return generate(dir, nodeNames, "ca", "tcpopt demo CA", true);
  }

  /**
   * Writes the operator CA ({@code operator-ca.crt}, reused when present) and one client certificate
   * per operator ({@code NAME.crt}, {@code NAME.key}) into {@code dir}; each entry's trusted file is
   * the operator CA. Same failures as {@link #generate}.
   */
  public static Map<String, TlsFiles> generateOperators(Path dir, List<String> operatorNames) {
    return generate(dir, operatorNames, "operator-ca", "tcpopt operator CA", false);
  }

  private static Map<String, TlsFiles> generate(Path dir, List<String> names, String caName, String caSubject, boolean nodes) {
    if (names.isEmpty()) {
      throw new IllegalArgumentException("no " + (nodes ? "node" : "operator") + " names given");
    }
    for (String name : names) {
      if (!NODE_NAME.matcher(name).matches() || name.length() > 253 || name.equals("ca") || name.equals("operator-ca")) {
        throw new IllegalArgumentException((nodes ? "node" : "operator") + " name \"" + name
            + "\" is not a DNS name (letters, digits, '-', '.'), or is \"ca\" or \"operator-ca\"");
      }
    }
    try {
      Files.createDirectories(dir);
      Path caCert = dir.resolve(caName + ".crt");
      Path caKeyFile = dir.resolve(caName + ".key");
      Issuer ca = Files.exists(caCert) && Files.exists(caKeyFile)
          ? Issuer.load(caCert, caKeyFile)
          : Issuer.create(caCert, caKeyFile, caSubject);
      Map<String, TlsFiles> out = new LinkedHashMap<>();
      for (String name : names) {
        KeyPair keys = newKeyPair();
        X509Certificate cert = nodes ? ca.issueNode(name, keys.getPublic()) : ca.issueOperator(name, keys.getPublic());
        Path certFile = dir.resolve(name + ".crt");
        Path keyFile = dir.resolve(name + ".key");
        writePem(certFile, cert, false);
        writePem(keyFile, new JcaPKCS8Generator(keys.getPrivate(), null), true);
        out.put(name, new TlsFiles(certFile, keyFile, caCert));
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write certificates to " + dir + ": " + e.getMessage(), e);
    } catch (GeneralSecurityException | OperatorCreationException e) {
      throw new IllegalStateException("cannot generate certificates: " + e.getMessage(), e);
    }
  }

  /** The CA that signs node certificates. */
  private record Issuer(X509Certificate certificate, PrivateKey key) {
    static Issuer create(Path certFile, Path keyFile, String name)
        throws GeneralSecurityException, OperatorCreationException, IOException {
      KeyPair keys = newKeyPair();
      X500Name subject = new X500Name("CN=" + name + " " + Long.toHexString(RANDOM.nextLong() >>> 16));
      Instant now = Instant.now();
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      X509v3CertificateBuilder b =
          new JcaX509v3CertificateBuilder(
                  subject, serial(), Date.from(now.minus(BACKDATE)), Date.from(now.plus(CA_VALIDITY)), subject, keys.getPublic())
              .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
              .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
              .addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(keys.getPublic()));
      X509Certificate cert = sign(b, keys.getPrivate());
      writePem(certFile, cert, false);
      writePem(keyFile, new JcaPKCS8Generator(keys.getPrivate(), null), true);
      return new Issuer(cert, keys.getPrivate());
    }

    static Issuer load(Path certFile, Path keyFile) {
      try {
        X509Certificate cert = PemMaterial.certificates(certFile).get(0);
        PrivateKey key = PemMaterial.privateKey(keyFile);
        PemMaterial.requireMatch(key, cert);
        return new Issuer(cert, key);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("existing CA in " + certFile.getParent() + " is unusable (" + e.getMessage() + "); remove "
            + certFile.getFileName() + " and " + keyFile.getFileName() + " to create a new one", e);
      }
    }

    X509Certificate issueNode(String name, PublicKey publicKey) throws GeneralSecurityException, OperatorCreationException, IOException {
      GeneralNames sans =
          new GeneralNames(
              new GeneralName[] {
                new GeneralName(GeneralName.dNSName, name),
                new GeneralName(GeneralName.dNSName, "localhost"),
                new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
              });
      X509v3CertificateBuilder b =
          leaf(name, publicKey)
              .addExtension(
                  Extension.extendedKeyUsage,
                  false,
                  new ExtendedKeyUsage(new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}))
              .addExtension(Extension.subjectAlternativeName, false, sans);
      return sign(b, key);
    }

    /** An operator's client certificate: CN=name, clientAuth only, no DNS name. */
    X509Certificate issueOperator(String name, PublicKey publicKey) throws GeneralSecurityException, OperatorCreationException, IOException {
      X509v3CertificateBuilder b =
          leaf(name, publicKey)
              .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_clientAuth));
      return sign(b, key);
    }

    private X509v3CertificateBuilder leaf(String name, PublicKey publicKey) throws GeneralSecurityException, IOException {
      Instant now = Instant.now();
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      Date notAfter = Date.from(now.plus(NODE_VALIDITY));
      if (notAfter.after(certificate.getNotAfter())) {
        notAfter = certificate.getNotAfter();
      }
      return new JcaX509v3CertificateBuilder(
              certificate, serial(), Date.from(now.minus(BACKDATE)), notAfter, new X500Name("CN=" + name), publicKey)
          .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
          .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyAgreement))
          .addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(publicKey))
          .addExtension(Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(certificate));
    }
  }

  private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey signer)
      throws OperatorCreationException, GeneralSecurityException {
    return new JcaX509CertificateConverter().getCertificate(builder.build(new JcaContentSignerBuilder(SIGNATURE).build(signer)));
  }

  private static KeyPair newKeyPair() throws GeneralSecurityException {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
    return generator.generateKeyPair();
  }

  private static BigInteger serial() {
    return new BigInteger(127, RANDOM).add(BigInteger.ONE);
  }

  /** Writes atomically (temp file + move); private files get mode 600 where POSIX permissions exist. */
  private static void writePem(Path file, Object pemObject, boolean secret) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.deleteIfExists(tmp);
    if (secret && FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
      Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    } else {
      Files.createFile(tmp);
    }
    try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.US_ASCII);
        JcaPEMWriter pem = new JcaPEMWriter(w)) {
      pem.writeObject(pemObject);
    }
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
