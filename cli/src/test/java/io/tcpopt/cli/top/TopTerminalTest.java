package io.tcpopt.cli.top;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.cli.demo.DemoCluster;
import io.tcpopt.cli.demo.Transfer;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code tcpopt top} in a real terminal: tmux runs it against a live demo cluster with an optimized
 * flow open, the test reads the screen, types {@code q} (or Ctrl-C) and checks that top exited 0 and
 * left the terminal in canonical mode with echo on. Skipped, with the reason printed, only where
 * tmux is not installed (.ci/run installs it).
 */
class TopTerminalTest {
  private static final String TMUX = "/usr/bin/tmux";
  private static final String SOCKET = "tcpopt-top-test-" + ProcessHandle.current().pid();

  private static DemoCluster demo;
  private static Socket interactive;
  private static Path script;

  @BeforeAll
  static void start() throws Exception {
    boolean tmux = Files.isExecutable(Path.of(TMUX));
    if (!tmux) {
      System.out.println("TopTerminalTest skipped: no " + TMUX + " (apt-get install tmux; .ci/run installs it)");
    }
    Assumptions.assumeTrue(tmux, "tmux not installed");
    demo = DemoCluster.start(0, 0, line -> {});
    interactive = Transfer.openEcho(demo.listener(), Duration.ofSeconds(30));
    // What runs in the pane: top, then its exit status and the terminal modes it left behind.
    script = Files.createTempFile("tcpopt-top-", ".sh");
    String java = ProcessHandle.current().info().command().orElse("java");
    Files.writeString(script, "#!/bin/sh\n"
        + "trap 'true' INT\n" // Ctrl-C is for top: the shell carries on to report (java gets the default handling)
        + "'" + java + "' -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp '" + System.getProperty("java.class.path") + "'"
        + " io.tcpopt.cli.Main top --controller " + demo.controller() + " --token " + demo.token() + " --interval 0.3\n"
        + "echo \"top exited $?\"\n"
        + "stty -a | tr ' ;' '\\n\\n' | grep -x -e icanon -e -icanon -e echo -e -echo | tr '\\n' ' '; echo '<- modes'\n"
        + "sleep 60\n");
  }

  @AfterAll
  static void stop() throws Exception {
    if (script != null) {
      tmux("kill-server");
      Files.deleteIfExists(script);
    }
    if (interactive != null) {
      interactive.close();
    }
    if (demo != null) {
      demo.close();
    }
  }

  @Test
  void showsPeersFlowsAndPolicyAndQuitsOnQ() throws Exception {
    String window = "quit-with-q";
    tmux("new-session", "-d", "-s", window, "-x", "160", "-y", "40", "sh " + script);
    String screen = awaitScreen(window, s -> s.contains("BUSIEST FLOWS") && s.contains("optimized"), "the first frame");
    assertTrue(screen.contains("policy " + DemoCluster.POLICY_NAME + " v1"), screen);
    assertTrue(screen.lines().anyMatch(l -> l.matches("branch-1\\s+dc-1\\s+dc\\s+2/2\\s+up\\s+.*\\s\\S+bit/s")), screen);
    assertTrue(screen.lines().anyMatch(l -> l.matches("branch-1/\\d+\\s+127\\.0\\.0\\.1:\\d+\\s+127\\.0\\.0\\.1:\\d+\\s+branch-1\\s+dc-1\\s+optimized\\s.*")),
        screen);
    assertTrue(screen.contains("q quit"), screen);
    // It refreshes: the clock in the header moves.
    String first = screen.lines().findFirst().orElse("");
    awaitScreen(window, s -> !s.lines().findFirst().orElse("").equals(first) && s.startsWith("tcpopt top"), "a refreshed frame");

    tmux("send-keys", "-t", window, "q");
    String after = awaitScreen(window, s -> s.contains("<- modes"), "top to exit");
    assertTrue(after.contains("top exited 0"), after);
    assertTrue(after.contains("icanon echo <- modes"), "terminal restored (canonical mode, echo on):\n" + after);
  }

  @Test
  void ctrlCAlsoRestoresTheTerminal() throws Exception {
    String window = "quit-with-ctrl-c";
    tmux("new-session", "-d", "-s", window, "-x", "160", "-y", "40", "sh " + script);
    awaitScreen(window, s -> s.contains("BUSIEST FLOWS"), "the first frame");
    tmux("send-keys", "-t", window, "C-c");
    String after = awaitScreen(window, s -> s.contains("<- modes"), "top to exit after Ctrl-C");
    assertTrue(after.contains("top exited 0"), after);
    assertTrue(after.contains("icanon echo <- modes"), "terminal restored after Ctrl-C:\n" + after);
  }

  private static String awaitScreen(String window, Predicate<String> condition, String what) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    String screen = "";
    while (System.nanoTime() < deadline) {
      screen = tmux("capture-pane", "-p", "-t", window);
      if (condition.test(screen)) {
        return screen;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("timed out waiting for " + what + "; the screen:\n" + screen);
  }

  private static String tmux(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(TMUX, "-L", SOCKET));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(10, TimeUnit.SECONDS));
    if (!args[0].equals("kill-server")) {
      assertEquals(0, p.exitValue(), "tmux " + String.join(" ", args) + ": " + out);
    }
    return out;
  }
}
