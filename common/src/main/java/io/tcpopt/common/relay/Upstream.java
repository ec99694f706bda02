package io.tcpopt.common.relay;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import io.tcpopt.common.transport.ResetCause;

/**
 * The far end of a bridged leg: a stream of an inter-node session, a direct TCP socket, or any
 * other byte pipe with credit, half-close and reset. A {@link LegBridge} drives it and never asks
 * which kind it has.
 *
 * <p>Threading: every method is called on {@link #eventLoop()}, and every {@link
 * UpstreamListener} call is made on it; state needs no locks. {@code eventLoop()} itself may be
 * called from any thread.
 *
 * <p>Credit: the bridge writes at most {@link #credit()} bytes; when credit is 0 it stops reading
 * its leg and waits for {@link UpstreamListener#onCredit()}. Towards the leg, bytes handed to
 * {@link UpstreamListener#onData} count against the upstream's receive window until the bridge
 * calls {@link #consumed} (after the leg's socket took them); an upstream must not deliver more
 * than its window, which is how a slow leg slows the far end down.
 *
 * <p>Lifecycle: {@link #start} once; then writes, {@link #end} at most once; {@link #reset} at any
 * time ends everything (idempotent, no listener calls after it). An upstream that fails or is
 * reset from its far end tells the listener once ({@link UpstreamListener#onReset}) and ignores
 * later calls (releasing any buffer written to it).
 */
public interface Upstream {
  /** The loop all calls run on. Any thread. */
  EventLoop eventLoop();

  /**
   * Starts the upstream (connect, arm an open, or deliver what already arrived) and directs its
   * events to {@code listener}. Listener calls may happen within this call.
   */
  void start(UpstreamListener listener);

  /**
   * Bytes that may be written now. 0 while the upstream is not ready (connecting) and whenever its
   * credit is exhausted; {@link UpstreamListener#onCredit()} says when to look again.
   */
  long credit();

  /** Sends {@code data} (readable bytes at most {@link #credit()}); takes ownership. Not flushed yet. */
  void write(ByteBuf data);

  /** Pushes out what {@link #write} queued. */
  void flush();

  /**
   * Half-closes towards the far end after everything written (FIN, END_STREAM). At most once. The
   * future succeeds once the end is out — for a WAN stream, once the peer node wrote every byte
   * before it to its leg — and fails when bytes before it were lost.
   */
  Future<Void> end();

  /** {@code bytes} delivered by {@link UpstreamListener#onData} were taken by the leg's socket: credit them back. */
  void consumed(int bytes);

  /** Aborts the far end with {@code cause} (RST, RST_STREAM). Idempotent; no listener calls after it. */
  void reset(ResetCause cause, String reason);
}
