package io.tcpopt.servicenode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tcpopt.common.tls.DemoCertificates;
import io.tcpopt.common.tls.TlsFiles;
import io.tcpopt.servicenode.trust.PeerRefusal;
import io.tcpopt.servicenode.trust.TrustedPeer;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Identity from certificates, authority from configuration, on real mutual-TLS sessions: a node
 * holding a valid certificate of the same CA ({@code rogue-1}) gets no session with the DC by
 * naming itself, by claiming a configured node's name or by claiming another site; the branch
 * refuses a node answering for the peer it dialled. The configured branch keeps its session.
 */
class PeerTrustTest {
  @TempDir static Path certs;
  static Map<String, TlsFiles> tls;
  static SimpleMeterRegistry dcMeters = new SimpleMeterRegistry();
  static ServiceNode dc;
  static ServiceNode branch;
  /** The branch's pool: {@code connections: 1} and its express connection (on by default). */
  private static final int BRANCH_POOL = 2;

  @BeforeAll
  static void start() {
    tls = DemoCertificates.generate(certs, List.of("branch-1", "dc-1", "rogue-1"));
    dc = ServiceNode.start(TestNodes.config("service-node:\n" + wan("dc-1") + "  peers: [ { name: branch-1, site: branch } ]\n"
        + "  serves: [127.0.0.0/8]   # the test servers run on loopback\n", "dc-1", "dc"),
        null, dcMeters);
    branch = ServiceNode.start(TestNodes.config("service-node:\n" + wan("branch-1") + dials(dc.wanAddress()), "branch-1", "branch"), null,
        new SimpleMeterRegistry());
    TestNodes.await(() -> upAtDc("branch-1") == BRANCH_POOL, 10_000, "the branch's session");
  }

  @AfterAll
  static void stop() {
    if (branch != null) {
      branch.close();
    }
    if (dc != null) {
      dc.close();
    }
  }

  private static String wan(String certificate) {
    TlsFiles t = tls.get(certificate);
    return "  wan:\n    listen: 127.0.0.1:0\n    connections: 1\n    tls: { certificate: '" + t.certificateChain() + "', private-key: '"
        + t.privateKey() + "', trusted: '" + t.trustedCertificates() + "' }\n";
  }

  private static String dials(InetSocketAddress dcWan) {
    return "  peers: [ { name: dc-1, site: dc, address: '127.0.0.1:" + dcWan.getPort() + "', prefixes: [127.0.0.0/8] } ]\n";
  }

  private static int upAtDc(String peer) {
    return dc.sessions().stream().filter(p -> p.name().equals(peer)).mapToInt(PeerSessionStatus::connectionsUp).sum();
  }

  private static double refused(MeterRegistry meters, PeerRefusal reason) {
    return meters.get("tcpopt.session.refused").tag("reason", reason.label()).counter().count();
  }

  /** Runs a node named {@code name} at {@code site} presenting {@code certificate}, dialling the DC, until the DC refused it once more. */
  private static void rogueRefused(String name, String site, String certificate, PeerRefusal expected) {
    double before = refused(dcMeters, expected);
    try (ServiceNode rogue = ServiceNode.start(TestNodes.config("service-node:\n" + wan(certificate) + dials(dc.wanAddress()), name, site), null,
        new SimpleMeterRegistry())) {
      TestNodes.await(() -> refused(dcMeters, expected) > before, 10_000, expected + " at the DC");
      // The rogue may count its connection up for a moment, between the DC's HELLO and the GOAWAY
      // that follows its own; the refusal closes it.
      TestNodes.await(() -> rogue.sessions().get(0).connectionsUp() == 0, 10_000, "the rogue has no session");
    }
    assertEquals(BRANCH_POOL, upAtDc("branch-1"), "the branch's session is untouched");
    assertEquals(List.of("branch-1"), dc.sessions().stream().map(PeerSessionStatus::name).toList());
    assertEquals("branch", dc.sessions().get(0).site());
  }

  @Test
  void aValidCertificateOfAnUnknownNodeIsRefused() {
    rogueRefused("rogue-1", "branch", "rogue-1", PeerRefusal.UNKNOWN_PEER);
  }

  @Test
  void claimingAConfiguredNodesNameIsRefused() {
    rogueRefused("branch-1", "branch", "rogue-1", PeerRefusal.IDENTITY_MISMATCH);
  }

  @Test
  void aRegisteredNodeClaimingAnotherSiteIsRefused() {
    dc.registeredPeers(List.of(new TrustedPeer("rogue-1", "branch")));
    try {
      rogueRefused("rogue-1", "dc", "rogue-1", PeerRefusal.SITE_MISMATCH);
    } finally {
      dc.registeredPeers(List.of());
    }
  }

  @Test
  void theBranchRefusesAnotherNodeAnsweringForItsPeer() {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    try (ServiceNode impostor = ServiceNode.start(TestNodes.config("service-node:\n" + wan("rogue-1"), "rogue-1", "dc"), null,
        new SimpleMeterRegistry());
        ServiceNode dialler = ServiceNode.start(TestNodes.config("service-node:\n" + wan("branch-1") + dials(impostor.wanAddress()), "branch-1",
            "branch"), null, meters)) {
      TestNodes.await(() -> refused(meters, PeerRefusal.IDENTITY_MISMATCH) >= 1, 10_000, "the branch refusing the impostor");
      assertEquals(0, dialler.sessions().get(0).connectionsUp());
      assertTrue(impostor.sessions().isEmpty(), "nor does the impostor hold a session (branch-1 is no peer of it)");
    }
  }
}
