package io.tcpopt.common.relay;

import io.netty.buffer.ByteBuf;
import io.tcpopt.common.transport.ResetCause;

/** What an {@link Upstream} tells its bridge. Called on the upstream's event loop. */
public interface UpstreamListener {
  /** Bytes from the far end (ownership passes); acknowledge with {@link Upstream#consumed} once delivered. */
  void onData(ByteBuf data);

  /** A batch of {@link #onData} calls ended: a good moment to flush the leg. */
  void onDataComplete();

  /** The far end half-closed: no more data after what was delivered. */
  void onEnd();

  /** The upstream became ready or its credit grew: write what waits. */
  void onCredit();

  /** The upstream is gone (refused, reset by the far end, failed); {@code reason} is for the flow record. */
  void onReset(ResetCause cause, String reason);
}
