package io.tcpopt.common.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fails the test (after each) and the test class (after all, following GC and an allocation churn
 * that makes Netty poll for collected, unreleased buffers) when Netty's leak detector reports a
 * {@code LEAK:}. Registered for every test through JUnit's extension auto-detection: it installs a
 * {@link ResourceLeakDetectorFactory} whose detectors record each report instead of only logging it.
 */
public final class NettyLeakGuard implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {
  private static final Logger log = LoggerFactory.getLogger(NettyLeakGuard.class);
  private static final ConcurrentLinkedQueue<String> LEAKS = new ConcurrentLinkedQueue<>();
  /**
   * Set only by the guard's own test while it leaks on purpose: reports are recorded but not
   * logged, so that the build's scan for {@code LEAK:} lines does not fail on the deliberate leak.
   */
  static volatile boolean quiet;

  static {
    install();
  }

  /** Installs the recording factory (idempotent; the static initializer already did). */
  public static synchronized void install() {
    if (ResourceLeakDetectorFactory.instance() instanceof RecordingFactory) {
      return;
    }
    ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new RecordingFactory());
    listenToBufferDetector();
  }

  /**
   * ByteBufs keep their detector in a static field created when the class loads; if that happened
   * before this guard was installed, listen to it too.
   */
  private static void listenToBufferDetector() {
    try {
      Field f = Class.forName("io.netty.buffer.AbstractByteBuf").getDeclaredField("leakDetector");
      f.setAccessible(true);
      ResourceLeakDetector<?> detector = (ResourceLeakDetector<?>) f.get(null);
      if (!(detector instanceof RecordingDetector)) {
        detector.setLeakListener((type, records) -> record(type, records));
      }
    } catch (ReflectiveOperationException | RuntimeException e) {
      log.warn("leak guard cannot watch ByteBuf's detector directly: {}", e.toString());
    }
  }

  private static void record(String type, String records) {
    String report = "LEAK: " + type + ".release() was not called before it was garbage-collected." + (records.isEmpty() ? "" : records);
    LEAKS.add(report);
  }

  /**
   * Makes Netty report buffers that were collected without release: GC, then allocate and release
   * tracked buffers (a detector polls its queue when it tracks a new resource). Returns and forgets
   * every report so far.
   */
  public static List<String> collectLeaks() {
    for (int round = 0; round < 3; round++) {
      System.gc();
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      churn();
    }
    return drainLeaks();
  }

  /** Returns and forgets the reports recorded so far, without forcing a GC. */
  public static List<String> drainLeaks() {
    List<String> out = new ArrayList<>();
    String s;
    while ((s = LEAKS.poll()) != null) {
      out.add(s);
    }
    return out;
  }

  private static void churn() {
    for (int i = 0; i < 64; i++) {
      ByteBuf a = PooledByteBufAllocator.DEFAULT.directBuffer(64);
      ByteBuf b = PooledByteBufAllocator.DEFAULT.heapBuffer(64);
      ByteBuf c = UnpooledByteBufAllocator.DEFAULT.buffer(64);
      a.release();
      b.release();
      c.release();
    }
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    install();
    drainLeaks();
  }

  @Override
  public void afterEach(ExtensionContext context) {
    failIfAny(drainLeaks(), context.getDisplayName());
  }

  @Override
  public void afterAll(ExtensionContext context) {
    failIfAny(collectLeaks(), context.getDisplayName());
  }

  /** Throws an {@link AssertionError} quoting the first report when there is any. */
  static void failIfAny(List<String> leaks, String where) {
    if (leaks.isEmpty()) {
      return;
    }
    if (!quiet) {
      for (String leak : leaks) {
        log.error("{} (in {})", leak, where);
      }
    }
    throw new AssertionError(leaks.size() + " Netty leak(s) in " + where + ":\n" + leaks.get(0));
  }

  private static final class RecordingFactory extends ResourceLeakDetectorFactory {
    @SuppressWarnings("deprecation") // the abstract method every factory must implement
    @Override
    public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval, long maxActive) {
      return new RecordingDetector<>(resource, samplingInterval);
    }

    @Override
    public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval) {
      return new RecordingDetector<>(resource, samplingInterval);
    }
  }

  private static final class RecordingDetector<T> extends ResourceLeakDetector<T> {
    RecordingDetector(Class<?> resource, int samplingInterval) {
      super(resource, samplingInterval);
    }

    @Override
    protected boolean needReport() {
      return true;
    }

    @Override
    protected void reportTracedLeak(String resourceType, String records) {
      record(resourceType, records);
      if (!quiet) {
        super.reportTracedLeak(resourceType, records);
      }
    }

    @Override
    protected void reportUntracedLeak(String resourceType) {
      record(resourceType, "");
      if (!quiet) {
        super.reportUntracedLeak(resourceType);
      }
    }
  }
}
