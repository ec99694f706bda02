package io.tcpopt.reduction;

import io.tcpopt.common.policy.DataReduction;
import io.tcpopt.common.policy.DataReduction.Compression;
import io.tcpopt.reduction.store.StoreSettings;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Encode and decode throughput of one stream per data-reduction mode, on random (never seen),
 * repeated (sent before: a second transfer) and compressible (text, logs, JSON) data. Named
 * {@code *Benchmark}, so {@code mvn test} never runs it; how to run it and the figures are in
 * docs/data-reduction.md. One operation encodes (or decodes) 16 MiB written in 64 KiB reads, with a
 * flush every 256 KiB, into segments of at most 64 KiB.
 *
 * <p>{@code main(--cpu-time)} measures the same work by the CPU time of its own thread (CPU seconds
 * per GB, immune to other load on a shared machine) and prints the WAN/LAN ratio of each case;
 * {@code --corpus FILE} replaces the generated text by a file (bench/tools/corpus.py).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
public class ReductionBenchmark {
  static final int SIZE = 16 << 20;
  static final int READ = 64 << 10;
  static final int FLUSH_EVERY = 256 << 10;
  static final int MAX_SEGMENT = 64 << 10;

  @Param({"off", "lz4", "zstd", "dedup", "dedup+zstd"})
  public String mode;

  @Param({"random", "repeated", "text"})
  public String data;

  private Scenario scenario;
  private List<byte[]> segments;

  static DataReduction mode(String name) {
    switch (name) {
      case "off":
        return DataReduction.OFF;
      case "lz4":
        return new DataReduction(Compression.LZ4, false);
      case "zstd":
        return new DataReduction(Compression.ZSTD, false);
      case "dedup":
        return new DataReduction(Compression.NONE, true);
      case "dedup+lz4":
        return new DataReduction(Compression.LZ4, true);
      case "dedup+zstd":
        return new DataReduction(Compression.ZSTD, true);
      default:
        throw new IllegalArgumentException("mode " + name);
    }
  }

  /** Encodes {@code input} as a node would: written in reads of {@link #READ}, flushed every {@link #FLUSH_EVERY}, finished; every segment made. */
  static List<byte[]> encodeAll(StreamEncoder e, byte[] input) {
    List<byte[]> out = new ArrayList<>(input.length / MAX_SEGMENT + 64);
    for (int at = 0; at < input.length; at += READ) {
      e.write(input, at, Math.min(READ, input.length - at));
      if ((at + READ) % FLUSH_EVERY == 0) {
        e.flush();
      }
      for (byte[] s; (s = e.poll()) != null; ) {
        out.add(s);
      }
    }
    e.finish();
    for (byte[] s; (s = e.poll()) != null; ) {
      out.add(s);
    }
    return out;
  }

  /** Offers every segment to {@code d} and drains it; returns the bytes decoded. */
  static long decodeAll(StreamDecoder d, List<byte[]> segments) {
    long n = 0;
    for (byte[] s : segments) {
      d.offer(s);
      for (byte[] out; (out = d.poll()) != null; ) {
        n += out.length;
      }
    }
    return n;
  }

  static byte[] input(String data, byte[] corpus) {
    switch (data) {
      case "random":
      case "repeated":
        return TestData.random(1, SIZE);
      case "text":
        return corpus != null ? corpus : TestData.text(2, SIZE);
      default:
        throw new IllegalArgumentException("data " + data);
    }
  }

  /**
   * Two engines and one stream's worth of input. For "repeated" the input has crossed once
   * (encoded, decoded, acknowledged); otherwise {@link #fresh()} gives new engines that know nothing.
   */
  static final class Scenario implements AutoCloseable {
    final DataReduction mode;
    final byte[] input;
    final boolean repeated;
    ReductionEngine a;
    ReductionEngine b;

    Scenario(DataReduction mode, String data, byte[] corpus) {
      this.mode = mode;
      this.input = input(data, corpus);
      this.repeated = data.equals("repeated");
      fresh();
      if (repeated) {
        StreamEncoder e = a.peer("b").openEncoder(mode, MAX_SEGMENT);
        List<byte[]> s = encode(e);
        decode(s);
        e.acknowledged(input.length);
        e.close(true);
      }
    }

    void fresh() {
      close();
      a = ReductionEngine.open(ReductionSettings.of(StoreSettings.memory(1L << 30)));
      b = ReductionEngine.open(ReductionSettings.of(StoreSettings.memory(1L << 30)));
      a.peer("b").peerEpoch(b.epoch(), 1L << 30);
      b.peer("a").peerEpoch(a.epoch(), 1L << 30);
    }

    List<byte[]> encode() {
      StreamEncoder e = a.peer("b").openEncoder(mode, MAX_SEGMENT);
      List<byte[]> s = encode(e);
      e.close(true);
      return s;
    }

    List<byte[]> encode(StreamEncoder e) {
      return encodeAll(e, input);
    }

    long decode(List<byte[]> segments) {
      StreamDecoder d = b.peer("a").openDecoder(null);
      long n = decodeAll(d, segments);
      d.close();
      if (n != input.length) {
        throw new IllegalStateException("decoded " + n + " of " + input.length);
      }
      return n;
    }

    @Override
    public void close() {
      if (a != null) {
        a.close();
        b.close();
      }
    }
  }

  @Setup(Level.Trial)
  public void trial() {
    scenario = new Scenario(mode(mode), data, null);
  }

  @Setup(Level.Invocation)
  public void invocation() {
    if (!scenario.repeated) {
      scenario.fresh(); // first-time data: nothing known, nothing cached
    }
    segments = scenario.encode();
    if (!scenario.repeated) {
      scenario.fresh();
    }
  }

  @TearDown(Level.Trial)
  public void done() {
    scenario.close();
  }

  /** Ops/s × 16 MiB = encode throughput. */
  @Benchmark
  public int encode() {
    return scenario.encode().size();
  }

  /** Ops/s × 16 MiB = decode throughput. */
  @Benchmark
  public long decode() {
    return scenario.decode(segments);
  }

  /** CPU seconds per GB of each case, by the CPU time of this thread, and the WAN/LAN ratio. */
  public static void main(String[] args) throws IOException {
    byte[] corpus = null;
    int rounds = 8;
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--corpus")) {
        byte[] all = Files.readAllBytes(Path.of(args[++i]));
        corpus = Arrays.copyOf(all, Math.min(all.length, SIZE));
      } else if (args[i].equals("--ratio")) {
        ratio(Files.readAllBytes(Path.of(args[++i])));
        return;
      } else if (args[i].equals("--steady")) {
        steady(Integer.parseInt(args[++i]), args.length > i + 1 ? args[++i] : "dedup+zstd");
        return;
      } else if (args[i].equals("--rounds")) {
        rounds = Integer.parseInt(args[++i]);
      } else if (!args[i].equals("--cpu-time")) {
        throw new IllegalArgumentException("usage: [--cpu-time] [--rounds N] [--corpus FILE] | --ratio FILE | --steady MB [MODE]");
      }
    }
    String[] modes = {"off", "lz4", "zstd", "dedup", "dedup+lz4", "dedup+zstd"};
    String[] kinds = {"random", "repeated", "text"};
    for (String data : kinds) { // warm-up: the JIT compiles every path before any figure is taken
      for (String m : modes) {
        cpuTime(m, data, corpus, 2);
      }
    }
    System.out.printf("%-11s %-9s %12s %12s %12s %12s %9s%n", "mode", "data", "enc CPU-s/GB", "dec CPU-s/GB",
        "enc MB/CPU-s", "dec MB/CPU-s", "WAN/LAN");
    for (String data : kinds) {
      for (String m : modes) {
        double[] r = cpuTime(m, data, corpus, rounds);
        System.out.printf("%-11s %-9s %12.2f %12.2f %12.0f %12.0f %9.4f%n", m, data, r[0], r[1], 1000 / r[0],
            1000 / r[1], r[2]);
      }
    }
  }

  /** Encode and decode CPU-s/GB and the WAN/LAN ratio of {@code rounds} operations. */
  private static double[] cpuTime(String m, String data, byte[] corpus, int rounds) {
    ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
    try (Scenario s = new Scenario(mode(m), data, corpus)) {
      long encNanos = 0;
      long decNanos = 0;
      long bytes = 0;
      long wan = 0;
      for (int r = 0; r < rounds; r++) {
        if (!s.repeated) {
          s.fresh();
        }
        long t0 = cpu.getCurrentThreadCpuTime();
        List<byte[]> segments = s.encode();
        long t1 = cpu.getCurrentThreadCpuTime();
        if (!s.repeated) {
          s.fresh();
        }
        long t2 = cpu.getCurrentThreadCpuTime();
        s.decode(segments);
        long t3 = cpu.getCurrentThreadCpuTime();
        encNanos += t1 - t0;
        decNanos += t3 - t2;
        bytes += s.input.length;
        wan += segments.stream().mapToLong(x -> x.length).sum();
      }
      double gb = bytes / 1e9;
      return new double[] {encNanos / 1e9 / gb, decNanos / 1e9 / gb, (double) wan / bytes};
    }
  }

  /**
   * {@code --steady MB [MODE]}: one pair of engines with caches of 256 MiB each, as on a node, fed
   * MB of data never seen before in 16 MiB streams (the caches fill, then evict), then a quarter as
   * much sent again; all of it once unrecorded first (the JIT compiles, the caches fill). Prints the CPU-s/GB of encoding and decoding (this thread) and of the garbage
   * collector's threads (from /proc, Linux), per kind of data: the GC figure is what a cache of
   * small arrays costs in young collections.
   */
  private static void steady(int mb, String m) throws IOException {
    DataReduction mode = mode(m);
    ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
    try (ReductionEngine a = ReductionEngine.open(ReductionSettings.of(StoreSettings.memory(256L << 20)));
        ReductionEngine b = ReductionEngine.open(ReductionSettings.of(StoreSettings.memory(256L << 20)))) {
      a.peer("b").peerEpoch(b.epoch(), 256L << 20);
      b.peer("a").peerEpoch(a.epoch(), 256L << 20);
      int ops = Math.max(1, mb / 16);
      byte[] input = null;
      int warmUp = 2;
      int seed = 1000;
      // warm-up (not printed): the caches fill and the JIT compiles both paths
      for (String kind : new String[] {"new", "repeat", "new", "repeat"}) {
        long enc = 0;
        long dec = 0;
        long bytes = 0;
        double gc0 = gcSeconds();
        for (int i = 0; i < (kind.equals("new") ? ops : Math.max(1, ops / 4)); i++) {
          if (kind.equals("new")) {
            input = TestData.random(seed++, SIZE);
          }
          StreamEncoder e = a.peer("b").openEncoder(mode, MAX_SEGMENT);
          long t0 = cpu.getCurrentThreadCpuTime();
          List<byte[]> segments = encodeAll(e, input);
          long t1 = cpu.getCurrentThreadCpuTime();
          StreamDecoder d = b.peer("a").openDecoder(null);
          long n = decodeAll(d, segments);
          long t2 = cpu.getCurrentThreadCpuTime();
          if (n != input.length) {
            throw new IllegalStateException("decoded " + n + " of " + input.length);
          }
          d.close();
          e.acknowledged(input.length);
          e.close(true);
          enc += t1 - t0;
          dec += t2 - t1;
          bytes += input.length;
        }
        double gb = bytes / 1e9;
        if (warmUp-- > 0) {
          continue;
        }
        System.out.printf("%-10s %-6s %6d MB  encode %.2f  decode %.2f  GC threads %.2f CPU-s/GB%n", m, kind,
            bytes >> 20, enc / 1e9 / gb, dec / 1e9 / gb, (gcSeconds() - gc0) / gb);
      }
    }
  }

  /** CPU seconds so far of this JVM's garbage collector threads (G1 and VM threads), from /proc. */
  private static double gcSeconds() throws IOException {
    double ticks = 0;
    try (var tasks = Files.list(Path.of("/proc/self/task"))) {
      for (Path t : (Iterable<Path>) tasks::iterator) {
        String comm;
        String stat;
        try {
          comm = Files.readString(t.resolve("comm")).trim();
          stat = Files.readString(t.resolve("stat"));
        } catch (IOException gone) {
          continue;
        }
        if (comm.startsWith("G1") || comm.startsWith("GC Thread") || comm.equals("VM Thread")) {
          String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]);
        }
      }
    }
    return ticks / 100.0; // USER_HZ
  }

  /** WAN bytes of one whole file per mode (the compressible-corpus figure of docs/data-reduction.md). */
  private static void ratio(byte[] file) {
    System.out.printf("%-11s %14s %14s %9s%n", "mode", "LAN bytes", "WAN bytes", "WAN/LAN");
    for (String m : new String[] {"lz4", "zstd", "dedup", "dedup+lz4", "dedup+zstd"}) {
      ReductionEngine a = ReductionEngine.open(ReductionSettings.of(StoreSettings.memory(1L << 30)));
      a.peer("b").peerEpoch(1, 1L << 30);
      StreamEncoder e = a.peer("b").openEncoder(mode(m), MAX_SEGMENT);
      long wan = 0;
      for (int at = 0; at < file.length; at += READ) {
        e.write(file, at, Math.min(READ, file.length - at));
        if ((at + READ) % FLUSH_EVERY == 0) {
          e.flush();
        }
        for (byte[] s; (s = e.poll()) != null; ) {
          wan += s.length;
        }
      }
      e.finish();
      for (byte[] s; (s = e.poll()) != null; ) {
        wan += s.length;
      }
      a.close();
      System.out.printf("%-11s %14d %14d %9.4f%n", m, file.length, wan, (double) wan / file.length);
    }
  }
}
