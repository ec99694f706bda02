package io.tcpopt.common.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.unix.Socket;
import java.io.IOException;
import java.lang.reflect.Field;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shuts down the output of an epoll leg (its FIN) without the exception Netty 4.2.18 makes for it.
 *
 * <p>Netty's {@code shutdownOutput} creates a {@code ChannelOutputShutdownException}, stack trace
 * included, on every call (to fail writes still queued) and then shuts the socket's output down.
 * A leg gets its FIN only once everything written to it is out ({@link Legs#shutdownOutputAfterWrites}),
 * so there is nothing to fail: this shuts the socket's output down directly, through the same
 * {@link Socket} object Netty tracks the leg's state in, so {@code isOutputShutdown()} stays true
 * to Netty and the leg can still read (half-closure). One exception less per flow whose far end
 * closes first. Other transports, and an epoll leg whose socket cannot be reached, take Netty's way.
 */
final class QuietOutputShutdown {
  private static final Logger log = LoggerFactory.getLogger(QuietOutputShutdown.class);
  private static final Field SOCKET = socketField();

  private QuietOutputShutdown() {}

  private static Field socketField() {
    try {
      Field f = Class.forName("io.netty.channel.epoll.AbstractEpollChannel").getDeclaredField("socket");
      f.setAccessible(true);
      return f;
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      log.debug("epoll legs' FIN takes Netty's shutdownOutput ({})", e.toString());
      return null;
    }
  }

  /**
   * Shuts down {@code leg}'s output if it is an epoll leg with nothing waiting to be written; on
   * its event loop. Returns false when it did not (another transport, or queued writes): the
   * caller then uses Netty's {@code shutdownOutput}.
   *
   * @throws IOException when the socket refused (the leg is gone)
   * @throws java.nio.channels.NotYetConnectedException when the socket is no longer connected
   *     (ENOTCONN: reset, or both FINs crossed)
   */
  static boolean shutdown(Channel leg) throws IOException {
    if (SOCKET == null || !SOCKET.getDeclaringClass().isInstance(leg) || !leg.eventLoop().inEventLoop()) {
      return false;
    }
    ChannelOutboundBuffer out = leg.unsafe().outboundBuffer();
    if (out == null || !out.isEmpty()) { // flushed writes still waiting: Netty's way fails them
      return false;
    }
    Socket socket;
    try {
      socket = (Socket) SOCKET.get(leg);
    } catch (IllegalAccessException | ClassCastException e) {
      return false;
    }
    socket.shutdown(false, true);
    return true;
  }
}
