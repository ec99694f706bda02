package io.tcpopt.servicenode.trust;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides which peers may hold a WAN session with this node and at which site. A peer's name is its
 * certificate identity (TLS) and must equal its HELLO name; the name must be a configured peer
 * ({@code service-node.peers}) or one the controller registered; its site is the configured or
 * registered one (a configured entry wins over a registration of the same name), and a HELLO
 * claiming another site is refused. On a plaintext session there is no certificate, so the HELLO
 * name is taken as it is: plaintext authenticates nobody.
 *
 * <p>Thread-safe: the configured peers never change, the registered ones are replaced as a whole.
 * Every refusal increments {@code tcpopt.session.refused{reason}}.
 */
public final class PeerAuthority implements HelloAdmission {
  private static final Logger log = LoggerFactory.getLogger(PeerAuthority.class);

  private final String localName;
  private final Map<String, String> configured = new HashMap<>();
  private volatile Map<String, String> registered = Map.of();
  private final Map<PeerRefusal, Counter> refusals = new EnumMap<>(PeerRefusal.class);

  /** {@code localName}: this node's own name, which no peer may use. */
  public PeerAuthority(String localName, List<TrustedPeer> configured, MeterRegistry registry) {
    this.localName = localName;
    for (TrustedPeer p : configured) {
      this.configured.put(p.name(), p.site());
    }
    for (PeerRefusal r : PeerRefusal.values()) {
      refusals.put(r, Counter.builder("tcpopt.session.refused").description("WAN sessions refused at HELLO, by reason")
          .tag("reason", r.label()).register(registry));
    }
  }

  /** Replaces the peers the controller has registered (this node's own record is ignored). */
  public void registered(Collection<TrustedPeer> peers) {
    Map<String, String> next = new HashMap<>();
    for (TrustedPeer p : peers) {
      if (!p.name().equals(localName)) {
        next.put(p.name(), p.site());
      }
    }
    if (!next.equals(registered)) {
      log.info("node {}: {} peer(s) registered with the controller", localName, next.size());
    }
    registered = Map.copyOf(next);
  }

  /** The site configured or registered for {@code name}, or null when the peer is unknown. */
  public String siteOf(String name) {
    String site = configured.get(name);
    return site != null ? site : registered.get(name);
  }

  @Override
  public PeerAdmission admit(String certificateIdentity, String helloName, String helloSite) {
    if (certificateIdentity != null && !certificateIdentity.equals(helloName)) {
      return refuse(PeerRefusal.IDENTITY_MISMATCH, "its certificate names \"" + certificateIdentity + "\" but its HELLO says \"" + helloName + "\"");
    }
    if (helloName.equals(localName)) {
      return refuse(PeerRefusal.IDENTITY_MISMATCH, "it claims this node's own name \"" + helloName + "\"");
    }
    String site = siteOf(helloName);
    if (site == null) {
      return refuse(PeerRefusal.UNKNOWN_PEER, "\"" + helloName + "\" is neither a configured peer nor registered with the controller");
    }
    if (!site.equals(helloSite)) {
      return refuse(PeerRefusal.SITE_MISMATCH, "\"" + helloName + "\" claims site \"" + helloSite + "\" but serves site \"" + site + "\"");
    }
    return PeerAdmission.admitted(helloName, site);
  }

  /**
   * The admission of a connection this node dialled to {@code peer}: as {@link #admit}, and the
   * answering node must be that peer.
   */
  public HelloAdmission dialled(String peer) {
    return (identity, helloName, helloSite) -> {
      if (!peer.equals(helloName)) {
        return refuse(PeerRefusal.IDENTITY_MISMATCH, "dialled \"" + peer + "\" but it answers as \"" + helloName + "\"");
      }
      return admit(identity, helloName, helloSite);
    };
  }

  private PeerAdmission refuse(PeerRefusal why, String reason) {
    refusals.get(why).increment();
    return PeerAdmission.refused(why, reason);
  }
}
