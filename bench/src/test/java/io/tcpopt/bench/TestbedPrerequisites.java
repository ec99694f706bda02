package io.tcpopt.bench;

import static org.junit.jupiter.api.Assumptions.abort;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What a namespace testbed test needs from the machine (Linux, root, TUN, the tools, the bench
 * scripts, permission to create a namespace); each missing piece aborts the test with one line
 * saying what is missing, so elsewhere it is skipped with its reason rather than failed.
 */
public final class TestbedPrerequisites {
  private TestbedPrerequisites() {}

  /**
   * Aborts {@code test} (named in the messages) unless the testbed can run here. {@code rootFor}
   * says what root is needed for; {@code probeNamespace} is created and deleted once.
   */
  public static void require(String test, String rootFor, List<String> tools, Path bench, String probeNamespace) throws Exception {
    if (!System.getProperty("os.name", "").toLowerCase().contains("linux")) {
      abort(test + " needs Linux network namespaces");
    }
    String uid = Files.readAllLines(Path.of("/proc/self/status")).stream()
        .filter(line -> line.startsWith("Uid:")).findFirst().orElse("Uid: -1").split("\\s+")[1];
    if (!uid.equals("0")) {
      abort(test + " needs root (" + rootFor + "); running as uid " + uid);
    }
    if (!Files.exists(Path.of("/dev/net/tun"))) {
      abort(test + " needs /dev/net/tun");
    }
    for (String tool : tools) {
      if (!onPath(tool)) {
        abort(test + " needs " + tool + " on the PATH");
      }
    }
    if (!Files.isExecutable(bench.resolve("testbed/up.sh"))) {
      abort(test + " must run in the bench module directory; not found: " + bench.resolve("testbed/up.sh"));
    }
    if (ip("netns", "add", probeNamespace) != 0) {
      abort(test + " cannot create network namespaces here");
    }
    ip("netns", "del", probeNamespace);
  }

  public static boolean onPath(String tool) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
        return true;
      }
    }
    return false;
  }

  private static int ip(String... args) throws Exception {
    List<String> command = new java.util.ArrayList<>(List.of("ip"));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    if (!p.waitFor(10, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      return -1;
    }
    return p.exitValue();
  }
}
