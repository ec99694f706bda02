package io.tcpopt.common.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.tcpopt.common.profile.LegProfiles;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Optimize actions naming http-reuse, client-ssl and server-ssl profiles. */
class ServiceProfileActionTest {
  static final String POLICY =
      """
      service-node-groups:
        G: { site: branch }
      http-reuse-profiles:
        web: { max-reuse: 100 }
      client-ssl-profiles:
        www: { certificate: tls/www.crt, private-key: tls/www.key, dynamic-record-threshold: 256KiB }
      server-ssl-profiles:
        backend: { server-name: www.example.com }
      data-policy:
        sequences:
          - seq: 1
            match: { destination-port: 8080 }
            action: { optimize: { service-node-group: G, http-reuse: web } }
          - seq: 2
            match: { destination-port: 443 }
            action: { optimize: { service-node-group: G, client-ssl: www, server-ssl: backend, http-reuse: oneconnect } }
          - seq: 3
            action: { optimize: { service-node-group: G } }
      """;

  @Test
  void actionsCarryTheResolvedProfilesToTheDecision() {
    PolicyDocument d = PolicyDocument.parse(POLICY, "test");
    assertEquals(new ServiceProfileRefs("web", null, null), d.sequences().get(0).action().services());
    assertEquals(new ServiceProfileRefs("oneconnect", "www", "backend"), d.sequences().get(1).action().services());
    assertEquals(ServiceProfileRefs.NONE, d.sequences().get(2).action().services());

    CompiledPolicy c = CompiledPolicy.compile(d);
    LegProfiles web = classify(c, 8080).profiles();
    assertEquals(100, web.httpReuse().maxReuse());
    assertNull(web.clientSsl());
    assertNull(web.serverSsl());
    LegProfiles tls = classify(c, 443).profiles();
    assertEquals(256 << 10, tls.clientSsl().threshold());
    assertEquals("www.example.com", tls.serverSsl().serverName());
    assertEquals("oneconnect", tls.httpReuse().name());
    LegProfiles plain = classify(c, 22).profiles();
    assertNull(plain.httpReuse());
    assertNull(plain.clientSsl());
  }

  private static Verdict classify(CompiledPolicy c, int port) {
    try {
      return c.classify(new FlowKey(0, java.net.InetAddress.getByName("198.18.1.2"), 40000, java.net.InetAddress.getByName("198.19.1.2"), port));
    } catch (java.net.UnknownHostException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void canonicalYamlKeepsTheReferencesAndProfiles() {
    PolicyDocument d = PolicyDocument.parse(POLICY, "test");
    PolicyDocument again = PolicyDocument.parse(d.toYaml(), "canonical");
    assertEquals(d, again);
    assertEquals(d.toYaml(), again.toYaml());
  }

  @Test
  void badReferencesAreReportedAtTheAction() {
    String bad =
        """
        service-node-groups:
          G: { site: branch }
        client-ssl-profiles:
          template: { allow-dynamic-record-sizing: false }
        data-policy:
          sequences:
            - seq: 1
              action: { optimize: { service-node-group: G, http-reuse: nope, client-ssl: clientssl, server-ssl: missing } }
            - seq: 2
              action: { optimize: { service-node-group: G, client-ssl: template, tls: yes } }
        """;
    PolicyException e = assertThrows(PolicyException.class, () -> PolicyDocument.parse(bad, "bad"));
    assertEquals(
        List.of(
            "data-policy.sequences[0].action.optimize.http-reuse: unknown http-reuse profile \"nope\"",
            "data-policy.sequences[0].action.optimize.server-ssl: unknown server-ssl profile \"missing\"",
            "data-policy.sequences[0].action.optimize.client-ssl: client-ssl profile \"clientssl\" names no certificate and private-key",
            "data-policy.sequences[1].action.optimize.tls: unknown setting (expected one of service-node-group, profiles, data-reduction, http-reuse, "
                + "client-ssl, server-ssl)",
            "data-policy.sequences[1].action.optimize.client-ssl: client-ssl profile \"template\" names no certificate and private-key"),
        e.errors().stream().map(FieldError::toString).toList());
  }
}
