package io.tcpopt.servicenode.session;

import io.tcpopt.servicenode.wire.DataFrame;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Puts one stream's received DATA back in stream order by their offsets (wire format 2,
 * docs/wire-format.md section 5.3): a frame at the next offset is delivered at once, with every held
 * frame it makes contiguous; a frame beyond it is held until the gap fills. The stream's credit
 * bounds what may be held (the sender never has more than its window unacknowledged, and nothing
 * is acknowledged before it is delivered in order). The END_STREAM is delivered only once every
 * byte before it was: never a FIN on a gap.
 *
 * <p>Offsets count the stream's LAN bytes, as credit does: an encoded segment advances the offset
 * by its decoded length, so segments are decoded in stream order after reassembly. Confined to the
 * connection's event loop.
 */
final class StreamReassembly {
  /** What {@link #offer} made of a frame. */
  enum Outcome {
    /** Taken: delivered (with whatever it made contiguous) or held until the gap before it fills. */
    TAKEN,
    /** Bytes at offsets already received or held: the peer broke the protocol (connection error). */
    OVERLAP,
    /** Bytes beyond the stream's end, or a second end: a stream error. */
    BEYOND_END,
  }

  /** The offset of the next byte to deliver: every byte below it was delivered. */
  private long next;
  /** The offset at which the peer's END_STREAM put the end, or -1 while unknown. */
  private long end = -1;
  private final TreeMap<Long, DataFrame> held = new TreeMap<>();
  private long heldLength;
  /** The highest offset received so far (held bytes included), the end of the last byte. */
  private long highest;
  /** The frame with the END_STREAM was delivered. */
  private boolean endDelivered;

  /** Reassembly of a stream whose first {@code next} bytes arrived already (an OPEN's first bytes). */
  StreamReassembly(long next) {
    this.next = next;
    this.highest = next;
  }

  /** The offset of the next byte to deliver. */
  long next() {
    return next;
  }

  /** Bytes received and not delivered yet, waiting for a gap before them (in credit units). */
  long heldLength() {
    return heldLength;
  }

  /** Whether frames wait for a gap to fill. */
  boolean hasGap() {
    return !held.isEmpty();
  }

  /** Whether the END_STREAM was delivered (every byte before it too). */
  boolean endDelivered() {
    return endDelivered;
  }


  /**
   * Takes a frame (ownership passes unless the outcome is not {@link Outcome#TAKEN}: then the caller
   * still owns it) and hands {@code deliver} every frame that is now in order, oldest first, the last
   * one delivered with the end carrying {@link DataFrame#endStream()}.
   */
  Outcome offer(DataFrame frame, Consumer<DataFrame> deliver) {
    long offset = frame.offset();
    long length = frame.creditLength();
    long stop = offset + length;
    if (end >= 0 && (frame.endStream() || length == 0 || stop > end)) {
      return Outcome.BEYOND_END;
    }
    if (frame.endStream() && stop < highest) {
      return Outcome.BEYOND_END; // an end before bytes already received
    }
    if (length > 0 && overlaps(offset, stop)) {
      return Outcome.OVERLAP;
    }
    if (frame.endStream()) {
      end = stop;
    }
    if (length > 0) {
      highest = Math.max(highest, stop);
    }
    if (length == 0 && !frame.endStream()) {
      frame.release(); // carries nothing
      return Outcome.TAKEN;
    }
    if (offset != next) {
      held.put(offset, frame);
      heldLength += length;
      return Outcome.TAKEN;
    }
    next = stop;
    deliverInOrder(frame, deliver);
    return Outcome.TAKEN;
  }

  /**
   * Delivers {@code first} (already counted in {@link #next}), then every held frame that is now in
   * order. The held frames are looked up afresh after each delivery: the handler may end the
   * stream meanwhile ({@link #clear}).
   */
  private void deliverInOrder(DataFrame first, Consumer<DataFrame> deliver) {
    endDelivered |= first.endStream();
    deliver.accept(first);
    Map.Entry<Long, DataFrame> following;
    while ((following = held.firstEntry()) != null && following.getKey() == next) {
      held.pollFirstEntry();
      DataFrame frame = following.getValue();
      long length = frame.creditLength();
      heldLength -= length;
      next += length;
      endDelivered |= frame.endStream();
      deliver.accept(frame);
    }
  }

  /** Whether {@code [offset, stop)} meets bytes already delivered or held. */
  private boolean overlaps(long offset, long stop) {
    if (offset < next) {
      return true;
    }
    Map.Entry<Long, DataFrame> before = held.floorEntry(offset);
    if (before != null && before.getKey() + before.getValue().creditLength() > offset) {
      return true;
    }
    Map.Entry<Long, DataFrame> after = held.ceilingEntry(offset);
    return after != null && after.getKey() < stop;
  }

  /** Releases every held frame (the stream was reset or its connection lost). */
  void clear() {
    for (DataFrame f : held.values()) {
      f.release();
    }
    held.clear();
    heldLength = 0;
  }
}
