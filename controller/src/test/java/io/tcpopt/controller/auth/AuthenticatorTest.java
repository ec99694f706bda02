package io.tcpopt.controller.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.common.tls.DemoCertificates;
import io.tcpopt.common.tls.PemMaterial;
import io.tcpopt.common.tls.TlsFiles;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AuthenticatorTest {
  @TempDir Path dir;

  @Test
  void anOpenApiMakesEveryoneAnOperator() throws Exception {
    Authenticator open = new Authenticator(Optional.empty(), false, List.of());
    assertTrue(open.open());
    assertEquals(new Caller(Caller.Role.OPERATOR, "anonymous"), open.identify(null, List.of()));
  }

  @Test
  void theTokenIsAnOperatorAndAWrongOneIsNobody() throws Exception {
    Authenticator auth = new Authenticator(Optional.of("s3cret"), false, List.of());
    assertEquals(Caller.Role.OPERATOR, auth.identify("Bearer s3cret", List.of()).role());
    assertEquals(Caller.Role.OPERATOR, auth.identify("bearer  s3cret ", List.of()).role());
    assertEquals("invalid bearer token", assertThrows(AuthenticationException.class, () -> auth.identify("Bearer nope", List.of())).getMessage());
    assertThrows(AuthenticationException.class, () -> auth.identify("Basic czNjcmV0", List.of()));
    assertThrows(AuthenticationException.class, () -> auth.identify(null, List.of()));
  }

  @Test
  void certificatesAreToldApartByTheirCa() throws Exception {
    TlsFiles node = DemoCertificates.generate(dir, List.of("branch-1")).get("branch-1");
    TlsFiles alice = DemoCertificates.generateOperators(dir, List.of("alice")).get("alice");
    List<X509Certificate> operatorCa = PemMaterial.certificates(alice.trustedCertificates());
    Authenticator auth = new Authenticator(Optional.empty(), true, operatorCa);
    assertFalse(auth.open());

    assertEquals(new Caller(Caller.Role.NODE, "branch-1"), auth.identify(null, PemMaterial.certificates(node.certificateChain())));
    assertEquals(new Caller(Caller.Role.OPERATOR, "alice"), auth.identify(null, PemMaterial.certificates(alice.certificateChain())));
    // Without an operator CA configured, the same operator certificate would be nobody's operator.
    Authenticator noOperators = new Authenticator(Optional.empty(), true, List.of());
    assertFalse(noOperators.operatorsPossible());
    assertEquals(Caller.Role.NODE, noOperators.identify(null, PemMaterial.certificates(alice.certificateChain())).role());
    assertThrows(AuthenticationException.class, () -> auth.identify(null, List.of()));
  }
}
