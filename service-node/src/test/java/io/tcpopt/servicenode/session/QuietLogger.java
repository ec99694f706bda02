package io.tcpopt.servicenode.session;

import java.lang.reflect.Field;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Silences one slf4j-simple logger for the length of a try block: a fuzz that closes a million
 * connections must not write a million WARN lines. Restores the level on close. A logger of another
 * binding is left as it is.
 */
final class QuietLogger implements AutoCloseable {
  private static final int OFF = 50; // slf4j-simple's LOG_LEVEL_OFF

  private final Object logger;
  private final Field level;
  private final int saved;

  QuietLogger(Class<?> of) {
    Logger l = LoggerFactory.getLogger(of);
    Field f = null;
    int s = 0;
    try {
      f = l.getClass().getDeclaredField("currentLogLevel");
      f.setAccessible(true);
      s = f.getInt(l);
      f.setInt(l, OFF);
    } catch (ReflectiveOperationException | RuntimeException e) {
      f = null;
    }
    this.logger = l;
    this.level = f;
    this.saved = s;
  }

  /** True when the logger is actually silenced. */
  boolean quiet() {
    return level != null;
  }

  @Override
  public void close() {
    if (level != null) {
      try {
        level.setInt(logger, saved);
      } catch (IllegalAccessException e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
