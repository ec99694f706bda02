package io.tcpopt.servicenode.reduction;

import io.tcpopt.reduction.ReductionStats;

/**
 * Data reduction with one peer, as counted by this node since it started, both directions: the
 * streams' LAN bytes against their WAN bytes, and of the chunks this node sent, how many went as
 * references (hits); plus this node's chunk cache, which all peers share.
 *
 * @param lanBytes bytes the reduced streams read from and wrote to their LAN legs
 * @param wanBytes bytes those streams' segments took on the WAN
 * @param chunks chunks this node sent to the peer (deduplication)
 * @param references of those, the ones sent as references
 * @param cacheBytes bytes this node's chunk cache holds (memory and disk)
 * @param cacheCapacity the cache's bound (memory and disk)
 */
public record PeerReductionFigures(String peer, long lanBytes, long wanBytes, long chunks, long references, long cacheBytes, long cacheCapacity) {
  static PeerReductionFigures of(String peer, ReductionStats.Snapshot s, long cacheBytes, long cacheCapacity) {
    return new PeerReductionFigures(peer, s.lanBytesOut() + s.lanBytesIn(), s.wanBytesOut() + s.wanBytesIn(), s.chunksOut() + s.referencesOut(),
        s.referencesOut(), cacheBytes, cacheCapacity);
  }

  /** Percent of the LAN bytes that did not cross the WAN (negative when framing cost more). */
  public double reductionPercent() {
    return lanBytes == 0 ? 0 : 100.0 * (1.0 - (double) wanBytes / lanBytes);
  }

  /** Percent of the chunks sent that went as references. */
  public double hitPercent() {
    return chunks == 0 ? 0 : 100.0 * references / chunks;
  }
}
