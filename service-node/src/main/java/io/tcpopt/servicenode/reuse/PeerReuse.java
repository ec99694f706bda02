package io.tcpopt.servicenode.reuse;

import io.tcpopt.common.profile.HttpReuseProfile;
import io.tcpopt.servicenode.wire.ServerReuse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What the far node honours of the HTTP server-reuse profile a peer's OPEN carries ({@code
 * service-node.peer-http-reuse}): the peer's policy decided the flow, this node keeps authority
 * over its own servers and memory. A peer's profile is used only when {@code allow} is set, each
 * setting clamped to this node's maxima, in pools of that peer alone (a peer's requests never ride
 * a connection another peer's requests use), and only while the node holds fewer than {@code
 * maxProfiles} distinct peer profiles. Whenever the peer's profile is not used, the node's own
 * policy decides as without one (its own {@code http-reuse}, or one server connection per flow);
 * the flow's note says why.
 *
 * @param allow honour peers' profiles at all (default true)
 * @param maxSize the largest {@code max-size} (idle connections per pool) a peer gets
 * @param maxAge the longest {@code max-age} a peer gets
 * @param maxReuse the largest {@code max-reuse} a peer gets
 * @param maxIdleTimeout the longest {@code idle-timeout} a peer gets
 * @param maxProfiles distinct peer profiles (each with its pools) the node holds at once
 */
public record PeerReuse(boolean allow, int maxSize, Duration maxAge, int maxReuse, Duration maxIdleTimeout, int maxProfiles) {
  /** The defaults: honoured, within F5's OneConnect defaults, idle connections kept at most 60 s, 64 profiles. */
  public static final PeerReuse DEFAULTS = new PeerReuse(true, 10_000, Duration.ofDays(1), 1_000_000, Duration.ofSeconds(60), 64);

  /** Name prefix of the profiles made from peers' OPENs ({@code peer:NAME}). */
  public static final String PROFILE_PREFIX = "peer:";

  public PeerReuse {
    Objects.requireNonNull(maxAge, "maxAge");
    Objects.requireNonNull(maxIdleTimeout, "maxIdleTimeout");
    if (maxSize < 1 || maxReuse < 1 || maxProfiles < 1 || maxAge.compareTo(Duration.ofSeconds(1)) < 0
        || maxIdleTimeout.compareTo(Duration.ofMillis(100)) < 0) {
      throw new IllegalArgumentException("bad peer-http-reuse limits");
    }
  }

  /**
   * The server side of one flow: the profile its requests are pooled with (null: one server
   * connection per flow), a note for its flow record (null: nothing to say), and whether the profile
   * is the peer's (its pools are then the peers' pools, else the node's own).
   */
  public record Choice(HttpReuseProfile profile, String note, boolean fromPeer) {
    Choice(HttpReuseProfile own, String note) {
      this(own, note, false);
    }
  }

  /**
   * Decides the reuse of a stream of {@code peer} whose OPEN carried {@code asked} (null: none),
   * where this node's own policy says {@code own} (null: none). {@code pools} holds the peers'
   * profiles (room is made there for a new one, or refused).
   */
  public Choice choose(ServerReuse asked, String peer, HttpReuseProfile own, ReusePools pools) {
    if (asked == null) {
      return new Choice(own, null);
    }
    String instead = own == null ? "one server connection per flow" : "this node's http-reuse " + own.name();
    if (!asked.understood()) {
      return new Choice(own, "peer's server-reuse block of version " + asked.version() + " not understood: " + instead);
    }
    if (!allow) {
      return new Choice(own, "peer's http-reuse not honoured (peer-http-reuse.allow is false): " + instead);
    }
    List<String> clamped = new ArrayList<>();
    int size = asked.maxSize();
    if (size > maxSize) {
      clamped.add("max-size " + size + " -> " + maxSize);
      size = maxSize;
    }
    Duration age = Duration.ofMillis(asked.maxAgeMillis());
    if (age.compareTo(maxAge) > 0) {
      clamped.add("max-age " + age.toMillis() + "ms -> " + maxAge.toMillis() + "ms");
      age = maxAge;
    }
    int reuse = asked.maxReuse();
    if (reuse > maxReuse) {
      clamped.add("max-reuse " + reuse + " -> " + maxReuse);
      reuse = maxReuse;
    }
    Duration idle = Duration.ofMillis(asked.idleTimeoutMillis());
    if (idle.compareTo(maxIdleTimeout) > 0) {
      clamped.add("idle-timeout " + idle.toMillis() + "ms -> " + maxIdleTimeout.toMillis() + "ms");
      idle = maxIdleTimeout;
    }
    HttpReuseProfile profile = new HttpReuseProfile(PROFILE_PREFIX + peer, null, asked.sourceMaskBits(), size, age, reuse, idle);
    if (!pools.roomFor(profile, maxProfiles)) {
      return new Choice(own, "peer's http-reuse not honoured (" + maxProfiles + " peer profiles in use, peer-http-reuse.max-profiles): " + instead);
    }
    return new Choice(profile, "http-reuse from peer's OPEN" + (clamped.isEmpty() ? "" : " (clamped: " + String.join(", ", clamped) + ")"), true);
  }
}
