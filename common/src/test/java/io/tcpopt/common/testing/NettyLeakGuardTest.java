package io.tcpopt.common.testing;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The guard must be able to fail: a deliberately leaked buffer is reported and turns into a failure. */
class NettyLeakGuardTest {

  @Test
  void leakedBufferIsReportedAndFailsTheTest() {
    assertTrue(ResourceLeakDetector.getLevel().ordinal() >= ResourceLeakDetector.Level.ADVANCED.ordinal(),
        "tests must run with -Dio.netty.leakDetection.level=paranoid");
    NettyLeakGuard.quiet = true;
    try {
      leakOne();
      // collectLeaks() also forgets the report, so this deliberate leak does not fail the class.
      List<String> leaks = NettyLeakGuard.collectLeaks();
      assertFalse(leaks.isEmpty(), "a leaked ByteBuf must be reported");
      assertTrue(leaks.get(0).startsWith("LEAK: "), leaks.get(0));
      AssertionError failure = assertThrows(AssertionError.class, () -> NettyLeakGuard.failIfAny(leaks, "this test"));
      assertTrue(failure.getMessage().contains("Netty leak"), failure.getMessage());
    } finally {
      NettyLeakGuard.quiet = false;
    }
  }

  @Test
  void releasedBuffersReportNothing() {
    for (int i = 0; i < 100; i++) {
      ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(128);
      b.writeLong(i);
      b.release();
    }
    List<String> leaks = NettyLeakGuard.collectLeaks();
    assertTrue(leaks.isEmpty(), leaks::toString);
    assertDoesNotThrow(() -> NettyLeakGuard.failIfAny(leaks, "this test"));
  }

  private static void leakOne() {
    ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(256);
    b.writeInt(42);
  }
}
