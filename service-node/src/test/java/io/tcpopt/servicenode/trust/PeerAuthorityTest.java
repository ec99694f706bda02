package io.tcpopt.servicenode.trust;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tcpopt.servicenode.wire.WireCodes;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The HELLO decision: certificate identity = HELLO name = a configured or registered peer, site from there. */
class PeerAuthorityTest {
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final PeerAuthority authority = new PeerAuthority("dc-1", List.of(new TrustedPeer("branch-1", "branch")), meters);

  private double refused(PeerRefusal reason) {
    return meters.get("tcpopt.session.refused").tag("reason", reason.label()).counter().count();
  }

  @Test
  void aConfiguredPeerIsAdmittedAtItsConfiguredSite() {
    PeerAdmission a = authority.admit("branch-1", "branch-1", "branch");
    assertTrue(a.isAdmitted());
    assertEquals("branch", a.site());
    assertEquals(3, meters.find("tcpopt.session.refused").counters().size(), "one series per reason, from the start");
  }

  @Test
  void theCertificateMustNameTheHelloName() {
    PeerAdmission a = authority.admit("rogue-1", "branch-1", "branch");
    assertEquals(PeerRefusal.IDENTITY_MISMATCH, a.refusal());
    assertEquals(WireCodes.GOAWAY_IDENTITY_MISMATCH, a.refusal().goAwayCode());
    assertEquals(1, refused(PeerRefusal.IDENTITY_MISMATCH));
  }

  @Test
  void anUnknownNameIsRefusedEvenWithItsOwnCertificate() {
    assertEquals(PeerRefusal.UNKNOWN_PEER, authority.admit("rogue-1", "rogue-1", "branch").refusal());
    assertEquals(1, refused(PeerRefusal.UNKNOWN_PEER));
  }

  @Test
  void anotherSiteThanConfiguredIsRefused() {
    PeerAdmission a = authority.admit("branch-1", "branch-1", "dc");
    assertEquals(PeerRefusal.SITE_MISMATCH, a.refusal());
    assertTrue(a.reason().contains("serves site \"branch\""), a.reason());
  }

  @Test
  void thisNodesOwnNameIsNoPeer() {
    assertEquals(PeerRefusal.IDENTITY_MISMATCH, authority.admit("dc-1", "dc-1", "dc").refusal());
  }

  @Test
  void registeredPeersAreAdmittedUntilReplacedAndConfigurationWins() {
    authority.registered(List.of(new TrustedPeer("branch-2", "branch"), new TrustedPeer("branch-1", "dc"), new TrustedPeer("dc-1", "x")));
    assertEquals("branch", authority.admit("branch-2", "branch-2", "branch").site());
    assertEquals("branch", authority.siteOf("branch-1"), "a registration does not move a configured peer");
    assertEquals(PeerRefusal.IDENTITY_MISMATCH, authority.admit("dc-1", "dc-1", "x").refusal(), "its own record is ignored");
    authority.registered(List.of());
    assertEquals(PeerRefusal.UNKNOWN_PEER, authority.admit("branch-2", "branch-2", "branch").refusal());
  }

  @Test
  void plaintextTakesTheHelloNameButStillOnlyKnownPeersAtTheirSite() {
    assertTrue(authority.admit(null, "branch-1", "branch").isAdmitted());
    assertEquals(PeerRefusal.UNKNOWN_PEER, authority.admit(null, "rogue-1", "branch").refusal());
    assertEquals(PeerRefusal.SITE_MISMATCH, authority.admit(null, "branch-1", "dc").refusal());
  }

  @Test
  void aDialledPeerMustAnswerAsItself() {
    PeerAuthority branch = new PeerAuthority("branch-1", List.of(new TrustedPeer("dc-1", "dc"), new TrustedPeer("dc-2", "dc")), meters);
    assertTrue(branch.dialled("dc-1").admit("dc-1", "dc-1", "dc").isAdmitted());
    PeerAdmission other = branch.dialled("dc-1").admit("dc-2", "dc-2", "dc");
    assertEquals(PeerRefusal.IDENTITY_MISMATCH, other.refusal());
    assertFalse(other.isAdmitted());
  }
}
