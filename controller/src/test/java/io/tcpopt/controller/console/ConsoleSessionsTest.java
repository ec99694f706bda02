package io.tcpopt.controller.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.controller.MutableClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Sessions are random, bounded in number, and expire when idle. */
class ConsoleSessionsTest {
  private final MutableClock clock = new MutableClock();
  private final ConsoleSessions sessions = new ConsoleSessions(clock);

  @Test
  void idsAndFormTokensAreRandomAndDistinct() {
    ConsoleSessions.Session a = sessions.open("token");
    ConsoleSessions.Session b = sessions.open("token");
    assertNotEquals(a.id, b.id);
    assertNotEquals(a.id, a.formToken);
    assertTrue(a.id.length() >= 40, a.id);
    assertEquals(a, sessions.find(a.id).orElseThrow());
    assertTrue(sessions.find("made-up").isEmpty());
    assertTrue(sessions.find(null).isEmpty());
  }

  @Test
  void idleSessionsExpireAndUseKeepsThemAlive() {
    ConsoleSessions.Session used = sessions.open("token");
    ConsoleSessions.Session idle = sessions.open("token");
    clock.advance(ConsoleSessions.IDLE.minusMinutes(1));
    assertTrue(sessions.find(used.id).isPresent());
    clock.advance(Duration.ofMinutes(2));
    assertTrue(sessions.find(used.id).isPresent(), "used a minute ago");
    assertTrue(sessions.find(idle.id).isEmpty(), "idle past the limit");
  }

  @Test
  void theLeastRecentlyUsedGoesWhenFull() {
    ConsoleSessions.Session first = sessions.open("token");
    ConsoleSessions.Session second = sessions.open("token");
    for (int i = 2; i < ConsoleSessions.MAX_SESSIONS; i++) {
      sessions.open("open");
    }
    sessions.find(first.id);
    sessions.open("open");
    assertEquals(ConsoleSessions.MAX_SESSIONS, sessions.size());
    assertTrue(sessions.find(first.id).isPresent(), "recently used");
    assertTrue(sessions.find(second.id).isEmpty(), "least recently used, dropped");
  }
}
