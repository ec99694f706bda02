package io.tcpopt.common.tls;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMException;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/**
 * Reads PEM certificates and private keys. Every failure is an {@link IllegalArgumentException}
 * whose message says what is wrong with the file, without the file name (callers add the field
 * or file it came from).
 */
public final class PemMaterial {
  private static final byte[] PROBE = "tcpopt key/certificate match probe".getBytes(StandardCharsets.US_ASCII);

  private PemMaterial() {}

  /** All X.509 certificates in a PEM file, in file order; at least one. */
  public static List<X509Certificate> certificates(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      Collection<? extends java.security.cert.Certificate> read =
          CertificateFactory.getInstance("X.509").generateCertificates(in);
      List<X509Certificate> out = new ArrayList<>();
      for (java.security.cert.Certificate c : read) {
        out.add((X509Certificate) c);
      }
      if (out.isEmpty()) {
        throw new IllegalArgumentException("contains no PEM certificate");
      }
      return List.copyOf(out);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException("file not found");
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read: " + e.getMessage());
    } catch (CertificateException e) {
      throw new IllegalArgumentException("not a PEM X.509 certificate (" + oneLine(e) + ")");
    }
  }

  /** The private key of a PEM file: PKCS#8 ({@code PRIVATE KEY}), or SEC1/PKCS#1 key pairs. */
  static PrivateKey privateKey(Path file) {
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.US_ASCII);
        PEMParser parser = new PEMParser(reader)) {
      JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
      for (Object o = parser.readObject(); o != null; o = parser.readObject()) {
        if (o instanceof PrivateKeyInfo info) {
          return converter.getPrivateKey(info);
        }
        if (o instanceof PEMKeyPair pair) {
          return converter.getKeyPair(pair).getPrivate();
        }
        if (o instanceof PKCS8EncryptedPrivateKeyInfo) {
          throw new IllegalArgumentException("encrypted private keys are not supported; store it unencrypted (PKCS#8) with mode 600");
        }
      }
      throw new IllegalArgumentException("contains no PEM private key");
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException("file not found");
    } catch (PEMException e) {
      throw new IllegalArgumentException("not a PEM private key (" + oneLine(e) + ")");
    } catch (IOException | RuntimeException e) {
      if (e instanceof IllegalArgumentException iae) {
        throw iae;
      }
      throw new IllegalArgumentException("not a readable PEM private key (" + oneLine(e) + ")");
    }
  }

  /** Fails unless {@code key} is the private half of {@code certificate}'s public key. */
  static void requireMatch(PrivateKey key, X509Certificate certificate) {
    String algorithm =
        switch (key.getAlgorithm()) {
          case "EC", "ECDSA" -> "SHA256withECDSA";
          case "RSA" -> "SHA256withRSA";
          case "Ed25519", "EdDSA" -> "Ed25519";
          case "Ed448" -> "Ed448";
          default -> null;
        };
    if (algorithm == null) {
      return;
    }
    try {
      Signature signer = Signature.getInstance(algorithm);
      signer.initSign(key);
      signer.update(PROBE);
      byte[] signature = signer.sign();
      Signature verifier = Signature.getInstance(algorithm);
      verifier.initVerify(certificate.getPublicKey());
      verifier.update(PROBE);
      if (verifier.verify(signature)) {
        return;
      }
    } catch (GeneralSecurityException e) {
      // a key of another type than the certificate's: reported below
    }
    throw new IllegalArgumentException(
        "does not match the certificate " + certificate.getSubjectX500Principal().getName());
  }

  private static String oneLine(Exception e) {
    String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }
}
