package io.tcpopt.controller.console;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The console's browser sessions: a random id (the HttpOnly cookie) and a random form token (for
 * CSRF checks) per signed-in operator, in memory only. Bounded: at most {@link #MAX_SESSIONS}, the
 * least recently used dropped first; a session unused for {@link #IDLE} expires. A controller
 * restart signs everyone out.
 */
final class ConsoleSessions {
  static final int MAX_SESSIONS = 256;
  static final Duration IDLE = Duration.ofHours(8);

  /** One signed-in browser; {@code how} says which credential opened it (for the page header). */
  static final class Session {
    final String id;
    final String formToken;
    final String how;
    long lastUsedMillis;

    Session(String id, String formToken, String how, long now) {
      this.id = id;
      this.formToken = formToken;
      this.how = how;
      this.lastUsedMillis = now;
    }
  }

  private final SecureRandom random = new SecureRandom();
  private final Clock clock;
  private final Map<String, Session> sessions = new LinkedHashMap<>(16, 0.75f, true);

  ConsoleSessions(Clock clock) {
    this.clock = clock;
  }

  synchronized Session open(String how) {
    expire();
    if (sessions.size() >= MAX_SESSIONS) {
      Iterator<String> oldest = sessions.keySet().iterator();
      oldest.next();
      oldest.remove();
    }
    Session s = new Session(randomToken(), randomToken(), how, clock.millis());
    sessions.put(s.id, s);
    return s;
  }

  synchronized Optional<Session> find(String id) {
    expire();
    Session s = id == null ? null : sessions.get(id);
    if (s != null) {
      s.lastUsedMillis = clock.millis();
    }
    return Optional.ofNullable(s);
  }

  synchronized void close(Session s) {
    sessions.remove(s.id);
  }

  synchronized int size() {
    return sessions.size();
  }

  private void expire() {
    long oldest = clock.millis() - IDLE.toMillis();
    sessions.values().removeIf(s -> s.lastUsedMillis < oldest);
  }

  private String randomToken() {
    byte[] b = new byte[32];
    random.nextBytes(b);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }
}
