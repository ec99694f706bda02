package io.tcpopt.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.cli.operator.ControllerConnector;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/**
 * Every command of the tree, found by walking picocli's model (so a new command is covered without
 * touching this test), answers {@code --help} and {@code -h} with its usage on stdout and exit 0,
 * even when it has required options; nothing runs and nothing connects.
 */
class HelpOptionsTest {
  private static final ControllerConnector UNUSED = target -> {
    throw new AssertionError("--help must not connect");
  };

  static Stream<Arguments> everyCommandAndHelpOption() {
    CliContext context = new CliContext(new PrintStream(PrintStream.nullOutputStream()), new PrintStream(PrintStream.nullOutputStream()),
        Map.of(), UNUSED, new AtomicBoolean());
    List<List<String>> paths = new ArrayList<>();
    collect(Main.commandLine(context), new ArrayList<>(), paths);
    assertTrue(paths.size() >= 14, "expected the whole tree, found " + paths);
    return paths.stream().flatMap(p -> Stream.of(Arguments.of(p, "--help"), Arguments.of(p, "-h")));
  }

  private static void collect(CommandLine command, List<String> path, List<List<String>> out) {
    out.add(List.copyOf(path));
    for (CommandLine sub : new java.util.LinkedHashSet<>(command.getSubcommands().values())) {
      path.add(sub.getCommandName());
      collect(sub, path, out);
      path.remove(path.size() - 1);
    }
  }

  @ParameterizedTest(name = "tcpopt {0} {1}")
  @MethodSource("everyCommandAndHelpOption")
  void printsUsageAndExitsZero(List<String> command, String option) {
    List<String> args = new ArrayList<>(command);
    args.add(option);
    CliRun r = CliRun.run(UNUSED, args.toArray(new String[0]));
    assertEquals(0, r.exitCode(), "tcpopt " + String.join(" ", args) + ": " + r.err());
    assertEquals("", r.err(), "nothing on stderr");
    String expected = "Usage: " + String.join(" ", prepend("tcpopt", command));
    assertTrue(r.out().contains(expected), "expected <" + expected + "> in:\n" + r.out());
  }

  private static List<String> prepend(String first, List<String> rest) {
    List<String> all = new ArrayList<>();
    all.add(first);
    all.addAll(rest);
    return all;
  }
}
