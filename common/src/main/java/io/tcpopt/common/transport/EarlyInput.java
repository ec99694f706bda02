package io.tcpopt.common.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelInboundInvoker;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import java.util.ArrayDeque;

/**
 * What a leg delivered before the handler that relays it joined the pipeline: the bytes, and its
 * FIN. Epoll reads up to a FIN that has arrived whatever the auto-read setting, so a handler that
 * holds a leg until its bridge joins (the controller's hand-off while it connects, the service
 * node's PROXY v2 header reader) keeps both here and hands them on in order, the FIN last.
 * Confined to the leg's event loop.
 */
public final class EarlyInput {
  private final ArrayDeque<ByteBuf> bytes = new ArrayDeque<>();
  private boolean fin;

  /** Holds {@code b} (ownership passes). */
  public void add(ByteBuf b) {
    bytes.add(b);
  }

  /** The leg's input was shut down (its FIN read) after what {@link #add} holds. */
  public void fin() {
    fin = true;
  }

  /** Fires the held bytes (then a read-complete), then the FIN, through {@code to}. */
  public void handOn(ChannelInboundInvoker to) {
    boolean any = false;
    ByteBuf b;
    while ((b = bytes.poll()) != null) {
      to.fireChannelRead(b);
      any = true;
    }
    if (any) {
      to.fireChannelReadComplete();
    }
    if (fin) {
      to.fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
    }
  }

  /** Releases the held bytes: the leg went away before its bridge joined it. */
  public void release() {
    ByteBuf b;
    while ((b = bytes.poll()) != null) {
      b.release();
    }
  }
}
