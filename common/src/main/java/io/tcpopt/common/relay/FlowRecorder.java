package io.tcpopt.common.relay;

/**
 * What a {@link LegBridge} reports about its flow: bytes each way, what it holds, when the flow is
 * open and why it closed. Called on the bridge's event loop. The service node records into its
 * flow table; the controller's handoff relay only logs.
 */
public interface FlowRecorder {
  /** Does nothing. */
  FlowRecorder NONE = new FlowRecorder() {};

  /** {@code bytes} were read from the leg (towards the upstream). */
  default void fromLeg(long bytes) {}

  /** {@code bytes} from the upstream are being written to the leg. */
  default void toLeg(long bytes) {}

  /** The bytes the bridge holds for the flow now, both directions (read but not sent on, or written but not taken by the leg). */
  default void buffered(long bytes) {}

  /** Leg and upstream are both connected. */
  default void open() {}

  /** The flow ended, once: {@code "completed"} after FIN both ways, else why it was reset. */
  default void closed(String reason) {}
}
