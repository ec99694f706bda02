package io.tcpopt.servicenode.session;

import java.security.SecureRandom;

/**
 * Names a WAN connection within the pool of the node that dialled it, as the dialler's HELLO
 * carries it (docs/wire-format.md section 5.1): {@code session}, a random non-zero value drawn once
 * per pool instance, so that an acceptor can tell which connections belong to one dialler's pool
 * (and a restarted dialler's new pool from its old one); {@code number}, the connection's number in
 * it, never reused within the session (a re-dialled or replacing connection gets a new one).
 * {@code group} is the pool's {@link ConnectionGroup}. An acceptor's HELLO carries session and
 * number 0. A number with {@link #EXPRESS} set names the pool's express connection ({@link
 * ConnectionGroup#express}), which both ends keep for interactive streams' DATA.
 */
record PooledConnection(long session, int number, ConnectionGroup group) {
  private static final SecureRandom RANDOM = new SecureRandom();
  /** The bit of a connection number that marks the pool's express connection (bit 30). */
  static final int EXPRESS = 1 << 30;

  /** The {@code dial}th connection of a pool (counting from 0), its express one when {@code express}. */
  static int number(int dial, boolean express) {
    return (dial & (EXPRESS - 1)) | (express ? EXPRESS : 0);
  }

  /** Whether connection number {@code number} names a pool's express connection. */
  static boolean isExpress(int number) {
    return (number & EXPRESS) != 0;
  }

  /** A new pool's session value: random, never 0. */
  static long newSession() {
    long s;
    do {
      s = RANDOM.nextLong();
    } while (s == 0);
    return s;
  }

  /** A dialled connection outside any pool: a session and a group of its own, number 0. */
  static PooledConnection alone() {
    return new PooledConnection(newSession(), 0, new ConnectionGroup());
  }
}
