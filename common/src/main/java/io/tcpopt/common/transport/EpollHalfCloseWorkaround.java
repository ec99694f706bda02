package io.tcpopt.common.transport;

import io.netty.channel.Channel;
import io.netty.channel.IoOps;
import io.netty.channel.IoRegistration;
import io.netty.channel.epoll.EpollIoOps;
import java.lang.reflect.Field;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a half-closed epoll leg able to wait for writability (Netty 4.2.18).
 *
 * <p>When a leg's input is shut down (the end host sent FIN) Netty clears EPOLLIN and EPOLLRDHUP;
 * with nothing else pending its registration asks for no events, and Netty 4.2.18's epoll
 * registration then removes the descriptor from the epoll set ({@code EPOLL_CTL_DEL}) but keeps
 * believing it is added. The next time the leg's send buffer fills, registering EPOLLOUT uses
 * {@code EPOLL_CTL_MOD} and fails with ENOENT; Netty fails the write and shuts the output down, so
 * the end host would read a clean EOF on a truncated response. This wrapper asks for
 * {@code EPOLLET} alone instead of "no events": the descriptor stays in the set, reporting nothing
 * but edge-triggered errors, and a later EPOLLOUT registration works. Installed on every LAN leg;
 * a no-op on other transports.
 */
public final class EpollHalfCloseWorkaround {
  private static final Logger log = LoggerFactory.getLogger(EpollHalfCloseWorkaround.class);
  private static final Field REGISTRATION = registrationField();

  private EpollHalfCloseWorkaround() {}

  private static Field registrationField() {
    try {
      Field f = Class.forName("io.netty.channel.epoll.AbstractEpollChannel").getDeclaredField("registration");
      f.setAccessible(true);
      return f;
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      log.warn("cannot guard half-closed epoll legs against lost writability ({}); half-closed flows may be cut short", e.toString());
      return null;
    }
  }

  /** Wraps the registration of a registered epoll channel; other channels are left alone. */
  public static void install(Channel ch) {
    if (REGISTRATION == null || !REGISTRATION.getDeclaringClass().isInstance(ch) || !ch.isRegistered()) {
      return;
    }
    try {
      Object current = REGISTRATION.get(ch);
      if (current instanceof IoRegistration && !(current instanceof NeverEmpty)) {
        REGISTRATION.set(ch, new NeverEmpty((IoRegistration) current));
      }
    } catch (IllegalAccessException e) {
      log.debug("cannot wrap the epoll registration of {}: {}", ch, e.toString());
    }
  }

  /** Substitutes {@code EPOLLET} for an empty interest set; everything else passes through. */
  private static final class NeverEmpty implements IoRegistration {
    private final IoRegistration delegate;

    NeverEmpty(IoRegistration delegate) {
      this.delegate = delegate;
    }

    @Override
    public <T> T attachment() {
      return delegate.attachment();
    }

    @Override
    public long submit(IoOps ops) {
      return delegate.submit(EpollIoOps.NONE.equals(ops) ? EpollIoOps.EPOLLET : ops);
    }

    @Override
    public boolean isValid() {
      return delegate.isValid();
    }

    @Override
    public boolean cancel() {
      return delegate.cancel();
    }
  }
}
