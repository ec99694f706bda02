package io.tcpopt.servicenode.admission;

import io.netty.util.internal.PlatformDependent;

/**
 * The JVM limits the buffer budget must fit in: the heap ({@code -Xmx}) and the direct memory
 * Netty may allocate ({@code -XX:MaxDirectMemorySize}, or {@code -Dio.netty.maxDirectMemory};
 * the heap size when neither is set). Flow buffers come from direct memory when Netty prefers it
 * (epoll, the default on Linux), else from the heap.
 */
public record MemoryLimits(long heapBytes, long directBytes, boolean directBuffers) {
  /** At most this share of the buffers' memory may be budgeted: the rest is for everything else (TLS, codecs, Hazelcast). */
  public static final double MAX_BUDGET_SHARE = 0.75;
  /** The default budget's share of the buffers' memory. */
  public static final double DEFAULT_BUDGET_SHARE = 0.5;

  public static MemoryLimits current() {
    return new MemoryLimits(Runtime.getRuntime().maxMemory(), PlatformDependent.maxDirectMemory(), PlatformDependent.directBufferPreferred());
  }

  /** The memory flow buffers are allocated from. */
  public long bufferMemory() {
    return directBuffers ? directBytes : heapBytes;
  }

  /** What it is, for an error message: "direct memory 512MiB (-XX:MaxDirectMemorySize, default -Xmx)". */
  public String describe() {
    return directBuffers
        ? "direct memory limit " + mib(directBytes) + " (-XX:MaxDirectMemorySize, by default the heap size -Xmx)"
        : "heap " + mib(heapBytes) + " (-Xmx)";
  }

  public long defaultBudget() {
    return (long) (bufferMemory() * DEFAULT_BUDGET_SHARE);
  }

  public long maxBudget() {
    return (long) (bufferMemory() * MAX_BUDGET_SHARE);
  }

  public static String mib(long bytes) {
    return (bytes >> 20) + "MiB";
  }
}
