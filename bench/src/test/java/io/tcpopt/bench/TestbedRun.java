package io.tcpopt.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.abort;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every namespace testbed test does around its own steps, in one place: runs the bench
 * scripts and commands with the test's namespace prefix ({@code TCPOPT_NS_PREFIX}), starts
 * long-running processes (nodes from the packaged jar, end-host tools) inside namespaces, writes
 * the example node configs with a test's own certificates, and tears everything down: {@link
 * #close()} stops the processes it started, then runs {@code testbed/down.sh}; a shutdown hook
 * does the same if the test JVM is stopped first.
 */
public final class TestbedRun implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TestbedRun.class);
  /** JIT flags for short-lived tools (CLI runs, end hosts): start fast, run briefly. */
  public static final String QUICK_JVM = "-XX:TieredStopAtLevel=1";
  /** The testbed's server address and the port its end-host tools listen on. */
  public static final String SERVER = "198.19.1.2";
  public static final int SERVER_PORT = 5201;

  private final String prefix;
  private final Path bench = Path.of("").toAbsolutePath();
  private final List<Process> processes = new ArrayList<>();
  private final List<Runnable> teardown = new ArrayList<>();
  private final Thread hook = new Thread(this::cleanUp, "testbed-run-cleanup");
  private volatile boolean testbedUp;
  private boolean closed;

  private TestbedRun(String prefix) {
    this.prefix = prefix;
  }

  /** A run whose namespaces are named {@code prefix...}; registers the shutdown hook. */
  public static TestbedRun open(String prefix) {
    TestbedRun run = new TestbedRun(prefix);
    Runtime.getRuntime().addShutdownHook(run.hook);
    return run;
  }

  /** The run's namespace for a testbed role ({@code client}, {@code branch}, {@code dc}, {@code server}, or any other). */
  public String ns(String role) {
    return prefix + role;
  }

  public Path bench() {
    return bench;
  }

  public Path repo() {
    return bench.getParent();
  }

  /** The packaged jar: {@code -Dtcpopt.jar=PATH}, else {@code cli/target/tcpopt.jar}. */
  public Path jar() {
    String configured = System.getProperty("tcpopt.jar");
    return configured != null ? Path.of(configured) : repo().resolve("cli/target/tcpopt.jar");
  }

  /** Aborts {@code test} (the reason printed) unless the jar exists. */
  public Path requireJar(String test) {
    Path jar = jar();
    if (!Files.isRegularFile(jar)) {
      abort(test + " needs the packaged jar at " + jar + " (mvn package, or -Dtcpopt.jar=PATH)");
    }
    return jar;
  }

  /** Also run at {@link #close()}, after the processes are stopped and before the testbed goes down (e.g. extra namespaces). */
  public void onClose(Runnable step) {
    synchronized (teardown) {
      teardown.add(step);
    }
  }

  /** One command's outcome. */
  public record Result(int exitCode, String stdout, String stderr) {
    public boolean ok() {
      return exitCode == 0;
    }
  }

  /**
   * Runs a bench script with the run's prefix; returns its stdout, fails the test on a non-zero
   * exit. After {@code testbed/up.sh}, {@link #close()} runs {@code testbed/down.sh}.
   */
  public String script(int timeoutSeconds, Map<String, String> env, String script, String... args) throws Exception {
    testbedUp |= script.equals("testbed/up.sh");
    List<String> command = new ArrayList<>(List.of(bench.resolve(script).toString()));
    command.addAll(List.of(args));
    Result r = exec(timeoutSeconds, env, command);
    if (r.exitCode() != 0) {
      throw new AssertionError(script + " failed (exit " + r.exitCode() + "): " + r.stderr().strip());
    }
    return r.stdout();
  }

  /** As {@link #script}, logging a failure instead of failing (cleanup). */
  public void scriptQuietly(String script, String... args) {
    try {
      List<String> command = new ArrayList<>(List.of(bench.resolve(script).toString()));
      command.addAll(List.of(args));
      Result r = exec(60, Map.of(), command);
      if (r.exitCode() != 0) {
        log.warn("{} exit {}: {}", script, r.exitCode(), r.stderr().strip());
      }
    } catch (Exception e) {
      log.warn("{} failed during cleanup", script, e);
    }
  }

  /** Runs a command (working directory: the repository root) with the run's prefix in its environment. */
  public Result exec(int timeoutSeconds, Map<String, String> env, List<String> command) throws IOException, InterruptedException {
    Path out = Files.createTempFile("tcpopt-testbed", ".out");
    Path err = Files.createTempFile("tcpopt-testbed", ".err");
    try {
      ProcessBuilder builder = new ProcessBuilder(command).directory(repo().toFile())
          .redirectOutput(out.toFile()).redirectError(err.toFile());
      builder.environment().put("TCPOPT_NS_PREFIX", prefix);
      builder.environment().remove("TCPOPT_CONTROLLER");
      builder.environment().putAll(env);
      Process process = builder.start();
      if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        process.descendants().forEach(ProcessHandle::destroy);
        process.destroy();
        process.waitFor(5, TimeUnit.SECONDS);
        throw new AssertionError(String.join(" ", command) + " did not finish in " + timeoutSeconds + " s");
      }
      return new Result(process.exitValue(), read(out), read(err));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  /** Runs {@code command} inside namespace {@code ns}. */
  public Result inNs(String ns, int timeoutSeconds, Map<String, String> env, String... command) throws IOException, InterruptedException {
    List<String> argv = new ArrayList<>(List.of("ip", "netns", "exec", ns));
    argv.addAll(List.of(command));
    return exec(timeoutSeconds, env, argv);
  }

  /** An operator command ({@code java -jar tcpopt.jar ARGS}) run inside {@code ns}. */
  public Result cli(String ns, Map<String, String> env, int timeoutSeconds, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("java", QUICK_JVM, "-jar", jar().toString()));
    command.addAll(List.of(args));
    return inNs(ns, timeoutSeconds, env, command.toArray(String[]::new));
  }

  /**
   * Starts a long-running process in a namespace (working directory the repository root, stdout and
   * stderr to {@code logFile}); stopped at {@link #close()}.
   */
  public Process start(String ns, Path logFile, String... command) throws IOException {
    List<String> argv = new ArrayList<>(List.of("ip", "netns", "exec", ns));
    argv.addAll(List.of(command));
    ProcessBuilder b = new ProcessBuilder(argv).directory(repo().toFile()).redirectErrorStream(true).redirectOutput(logFile.toFile());
    b.environment().remove("TCPOPT_CONTROLLER");
    Process p = b.start();
    synchronized (processes) {
      processes.add(p);
    }
    return p;
  }

  /** Whether something in {@code ns} listens on TCP {@code port}. */
  public boolean listening(String ns, int port) throws Exception {
    return !inNs(ns, 10, Map.of(), "ss", "-Hltn", "sport = :" + port).stdout().isBlank();
  }

  /** The test classes' directory ({@code bench/target/test-classes}): the end-host tools' class path. */
  public String testClasses() {
    return bench.resolve("target/test-classes").toString();
  }

  /**
   * Starts an end-host tool of the test classes as the testbed's server on {@value #SERVER}:{@value
   * #SERVER_PORT} (e.g. {@code io.tcpopt.bench.TransferDigestTool}, {@code EchoDigestTool}); it logs
   * LISTENING once bound.
   */
  public Process startServer(Path logFile, String tool, String... jvmOptions) throws IOException {
    List<String> argv = new ArrayList<>(List.of("java", QUICK_JVM));
    argv.addAll(List.of(jvmOptions));
    argv.addAll(List.of("-cp", testClasses(), tool, "server", SERVER, Integer.toString(SERVER_PORT)));
    return start(ns("server"), logFile, argv.toArray(String[]::new));
  }

  /** Starts a node from the packaged jar in {@code role}'s namespace: {@code java OPTIONS -jar tcpopt.jar run --config CONFIG}. */
  public Process startNode(String role, Path config, Path logFile, String... jvmOptions) throws IOException {
    List<String> argv = new ArrayList<>(List.of("java"));
    argv.addAll(List.of(jvmOptions));
    argv.addAll(List.of("-jar", jar().toString(), "run", "--config", config.toString()));
    return start(ns(role), logFile, argv.toArray(String[]::new));
  }

  /** The example pair as {@link #startPair} started it: configs, processes and logs. */
  public record Pair(Path branchConfig, Path dcConfig, Process server, Path serverLog, Process dc, Path dcLog, Process branch, Path branchLog) {}

  /**
   * Starts the example pair from the configs {@link #testbedConfigs} wrote into {@code dir} (as
   * the test edited them): the server tool, the DC node, then the branch node, each JVM with
   * {@code nodeJvm}; returns once {@link #awaitPairReady} says so.
   */
  public Pair startPair(Path dir, String serverTool, String... nodeJvm) throws Exception {
    Path serverLog = dir.resolve("server.log");
    Process server = startServer(serverLog, serverTool);
    Path dcConfig = dir.resolve("dc.yaml");
    Path dcLog = dir.resolve("dc.log");
    Process dc = startNode("dc", dcConfig, dcLog, nodeJvm);
    Path branchConfig = dir.resolve("branch.yaml");
    Path branchLog = dir.resolve("branch.log");
    Process branch = startNode("branch", branchConfig, branchLog, nodeJvm);
    awaitPairReady(branch, branchLog, dc, serverLog);
    return new Pair(branchConfig, dcConfig, server, serverLog, dc, dcLog, branch, branchLog);
  }

  /**
   * The Prometheus text of the node in {@code role}'s namespace (its metrics endpoint on that
   * namespace's 127.0.0.1:9464). Up to 3 attempts, 500 ms apart: a scrape can fail with HTTP 500
   * while the node re-registers its per-peer gauges (seen 2026-12-02: DuplicateLabelsException for
   * tcpopt_reduction_cache_hit_ratio, NodeMeters' MultiGauge refresh racing the scrape).
   */
  public String metrics(String role) throws Exception {
    Result r = null;
    for (int attempt = 0; attempt < 3; attempt++) {
      if (attempt > 0) {
        Thread.sleep(500);
      }
      r = inNs(ns(role), 30, Map.of(), "python3", "-c",
          "import urllib.request;print(urllib.request.urlopen('http://127.0.0.1:9464/metrics',timeout=20).read().decode())");
      if (r.ok()) {
        return r.stdout();
      }
      log.warn("metrics of the {} node unreadable (attempt {}): {}", role, attempt + 1, r.stderr().strip());
    }
    throw new AssertionError("metrics of the " + role + " node unreadable: " + r.stderr().strip());
  }

  /** The sum of the series of metric {@code name} in {@code metrics} whose labels contain every one of {@code labels} (e.g. {@code limit="per-client"}). */
  public static double metric(String metrics, String name, String... labels) {
    double sum = 0;
    for (String line : metrics.lines().toList()) {
      if (line.startsWith(name + "{") && Arrays.stream(labels).allMatch(line::contains)) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  }

  /**
   * Waits (at most 150 s) until the example pair is ready: the branch intercepts on 7900, serves its
   * API on 7700 and holds a session to the DC, and the server logged LISTENING; fails at once if a
   * node exits. On an idle machine that takes 10-20 s; at a load average of 25 on 2 cores a branch
   * node took 95 s (30 s of it joining its one-member Hazelcast cluster).
   */
  public void awaitPairReady(Process branch, Path branchLog, Process dc, Path serverLog) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(150);
    while (System.nanoTime() < deadline) {
      if (!branch.isAlive() || !dc.isAlive()) {
        throw new AssertionError("a node exited early:\n" + read(branchLog));
      }
      if (read(branchLog).contains("session to peer") && read(serverLog).contains("LISTENING")
          && listening(ns("branch"), 7900) && listening(ns("branch"), 7700)) {
        return;
      }
      Thread.sleep(200);
    }
    throw new AssertionError("nodes not ready in 150 s\n" + read(branchLog));
  }

  /**
   * Copies the example testbed node configs ({@code deploy/examples/testbed/branch.yaml}, {@code
   * dc.yaml}) into {@code dir} with certificates from {@code tcpopt certs} in {@code dir/certs} (for
   * branch-1, dc-1 and any {@code moreNodes}, all from one CA) and the operator token {@code token}
   * in {@code dir/secrets}; returns the branch config.
   */
  public Path testbedConfigs(Path dir, String token, String... moreNodes) throws Exception {
    Path certs = dir.resolve("certs");
    List<String> nodes = new ArrayList<>(List.of("branch-1", "dc-1"));
    nodes.addAll(List.of(moreNodes));
    Result r = exec(60, Map.of(), List.of("java", QUICK_JVM, "-jar", jar().toString(), "certs", "--out", certs.toString(),
        "--nodes", String.join(",", nodes)));
    assertEquals(0, r.exitCode(), () -> "tcpopt certs failed: " + r.stderr());
    Path secrets = Files.createDirectories(dir.resolve("secrets"));
    Files.writeString(secrets.resolve("operator-token"), token + "\n");
    for (String name : List.of("branch.yaml", "dc.yaml")) {
      String yaml = Files.readString(repo().resolve("deploy/examples/testbed").resolve(name))
          .replace("deploy/examples/testbed/certs/", certs + "/")
          .replace("deploy/examples/testbed/secrets/", secrets + "/");
      Files.writeString(dir.resolve(name), yaml);
    }
    String branch = Files.readString(dir.resolve("branch.yaml"));
    assertTrue(branch.contains("roles: [controller, service-node]") && branch.contains(secrets + "/operator-token"), branch);
    return dir.resolve("branch.yaml");
  }

  /** A condition a test waits for; it may run commands. */
  public interface Check {
    boolean holds() throws Exception;
  }

  /** A failure message computed only when a wait fails (it may read logs or run commands). */
  public interface Explanation {
    String text() throws Exception;
  }

  /**
   * Checks {@code condition} every {@code pollMillis} until it holds; fails with {@code what} after
   * {@code seconds}. Poll slowly (250 ms and more) when a check starts processes.
   */
  public static void awaitTrue(Check condition, int seconds, long pollMillis, Explanation what) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (!condition.holds()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + seconds + " s: " + what.text());
      }
      Thread.sleep(pollMillis);
    }
  }

  /**
   * At {@link #close()}, copies the {@code *.log} files of {@code dir} (node, server and tool logs)
   * to {@code bench/target/testbed-logs/NAME/}, so that they outlive the test's temporary
   * directory for a look after a failure.
   */
  public void keepLogs(Path dir, String name) {
    onClose(() -> {
      try (var files = Files.list(dir)) {
        Path to = Files.createDirectories(bench.resolve("target/testbed-logs").resolve(name));
        for (Path f : files.filter(f -> f.getFileName().toString().endsWith(".log")).toList()) {
          Files.copy(f, to.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
        }
      } catch (IOException e) {
        log.warn("cannot keep the logs of {}: {}", dir, e.toString());
      }
    });
  }

  /** The file's text; "" when it does not exist (yet), the error when it cannot be read. */
  /** The last {@code count} lines of {@code file} (for failure messages), or "" if it is missing. */
  public static String tail(Path file, int count) {
    List<String> lines = read(file).lines().toList();
    return String.join("\n", lines.subList(Math.max(0, lines.size() - count), lines.size()));
  }

  public static String read(Path file) {
    try {
      return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      return "(cannot read " + file + ": " + e + ")";
    }
  }

  @Override
  public void close() {
    cleanUp();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // already shutting down: the hook runs cleanUp itself
    }
  }

  /** Stops what this run started (nodes first, so they remove their rules), then the testbed if it was built. Idempotent. */
  private void cleanUp() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    List<Process> mine;
    synchronized (processes) {
      mine = new ArrayList<>(processes);
      processes.clear();
    }
    for (Process p : mine) {
      p.destroy();
    }
    for (Process p : mine) {
      try {
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      } catch (InterruptedException e) {
        p.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
    synchronized (teardown) {
      teardown.forEach(step -> {
        try {
          step.run();
        } catch (RuntimeException e) {
          log.warn("teardown step failed", e);
        }
      });
    }
    if (testbedUp) {
      scriptQuietly("testbed/down.sh");
    }
  }
}
