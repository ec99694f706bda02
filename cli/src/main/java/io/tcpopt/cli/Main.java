package io.tcpopt.cli;

import io.grpc.StatusRuntimeException;
import io.tcpopt.cli.demo.DemoCommand;
import io.tcpopt.cli.node.CertsCommand;
import io.tcpopt.cli.node.RunCommand;
import io.tcpopt.cli.operator.DrainCommand;
import io.tcpopt.cli.operator.FlowsCommand;
import io.tcpopt.cli.operator.NodesCommand;
import io.tcpopt.cli.operator.PolicyCommand;
import io.tcpopt.cli.operator.StatusCommand;
import io.tcpopt.cli.operator.UndrainCommand;
import io.tcpopt.cli.top.TopCommand;
import io.tcpopt.common.config.ConfigException;
import io.tcpopt.common.policy.PolicyException;
import java.io.PrintWriter;
import java.lang.reflect.Constructor;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Entry point of the {@code tcpopt} launcher. {@link #execute} runs one command line against a
 * {@link CliContext} and returns the exit code (0 ok, 1 runtime error, 2 usage error), so tests run
 * the real CLI in-process; {@link #main} passes it to {@link System#exit}. Every failure is one line
 * {@code tcpopt: <what went wrong>} on stderr; a stack trace only for bugs, and only with
 * TCPOPT_DEBUG set.
 */
@Command(
    name = "tcpopt",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description = "SD-WAN style TCP optimization: nodes, demo and operator commands.",
    subcommands = {
      RunCommand.class,
      DemoCommand.class,
      StatusCommand.class,
      FlowsCommand.class,
      NodesCommand.class,
      DrainCommand.class,
      UndrainCommand.class,
      TopCommand.class,
      PolicyCommand.class,
      CertsCommand.class,
      CommandLine.HelpCommand.class
    })
public final class Main implements Callable<Integer> {
  private final CliContext context;

  Main(CliContext context) {
    this.context = context;
  }

  public static void main(String[] args) {
    // Before anything logs: Hazelcast through SLF4J like the rest, and quieter demo output.
    setDefault("hazelcast.logging.type", "slf4j");
    leakDetectionOffByDefault();
    if (args.length > 0 && args[0].equals("demo") && !List.of(args).contains("--verbose")) {
      setDefault("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    }
    System.exit(execute(args, CliContext.system()));
  }

  /**
   * Netty's default leak detection ({@code simple}) tracks one buffer in 128 and records a stack
   * trace for each (Throwable.fillInStackTrace): 2-5% of a node's CPU on the loopback pair
   * (docs/tuning.md, "Memory and file descriptors"). Off unless asked for with either of Netty's
   * properties ({@code -Dio.netty.leakDetection.level=simple}, or paranoid as the tests run). Must
   * run before any Netty class reads it.
   */
  static void leakDetectionOffByDefault() {
    if (System.getProperty("io.netty.leakDetectionLevel") == null) {
      setDefault("io.netty.leakDetection.level", "disabled");
    }
  }

  private static void setDefault(String property, String value) {
    if (System.getProperty(property) == null) {
      System.setProperty(property, value);
    }
  }

  /** Runs one command line and returns its exit code; never calls {@link System#exit}. */
  public static int execute(String[] args, CliContext context) {
    return commandLine(context).execute(args);
  }

  /**
   * The command tree with the CLI's output streams and error handlers. Every subcommand answers
   * {@code -h/--help} with its usage (exit 0), whatever options it requires.
   */
  static CommandLine commandLine(CliContext context) {
    CommandLine cli = new CommandLine(new Main(context), new ContextFactory(context));
    addHelpOptions(cli);
    cli.setOut(new PrintWriter(context.out(), true));
    cli.setErr(new PrintWriter(context.err(), true));
    cli.setCaseInsensitiveEnumValuesAllowed(true);
    cli.setParameterExceptionHandler((e, ignored) -> {
      String command = e.getCommandLine().getCommandSpec().qualifiedName();
      context.err().println("tcpopt: " + e.getMessage() + " (see '" + command + " --help')");
      return CliException.USAGE;
    });
    cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
      context.err().println("tcpopt: " + describe(e));
      if (!isUserError(e) && context.env().containsKey("TCPOPT_DEBUG")) {
        e.printStackTrace(context.err());
      }
      return e instanceof CliException ? ((CliException) e).exitCode() : CliException.RUNTIME;
    });
    return cli;
  }

  /**
   * Gives every subcommand without one a {@code -h/--help} usage-help option. (Picocli's inherited
   * standard help options would also bring {@code -V/--version}, which "policy get" and "policy
   * rollback" use for the policy version.)
   */
  private static void addHelpOptions(CommandLine command) {
    for (CommandLine sub : command.getSubcommands().values()) {
      CommandSpec spec = sub.getCommandSpec();
      if (spec.findOption("--help") == null && spec.findOption("-h") == null) {
        spec.addOption(OptionSpec.builder("-h", "--help").usageHelp(true).description("Show this help message and exit.").build());
      }
      addHelpOptions(sub);
    }
  }

  @Override
  public Integer call() {
    context.err().println("tcpopt: a command is required (see 'tcpopt --help')");
    return CliException.USAGE;
  }

  static boolean isUserError(Throwable e) {
    return e instanceof CliException
        || e instanceof ConfigException
        || e instanceof PolicyException
        || e instanceof StatusRuntimeException
        || e.getClass().getName().startsWith("io.tcpopt.");
  }

  static String describe(Throwable e) {
    if (e instanceof StatusRuntimeException) {
      StatusRuntimeException s = (StatusRuntimeException) e;
      return s.getStatus().getDescription() == null ? s.getStatus().getCode().toString() : s.getStatus().getDescription();
    }
    if (isUserError(e)) {
      return firstLine(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
    }
    return "internal error: " + e + " (set TCPOPT_DEBUG=1 for the stack trace)";
  }

  private static String firstLine(String s) {
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }

  /** Creates commands with the {@link CliContext} when they take one. */
  private static final class ContextFactory implements CommandLine.IFactory {
    private final CliContext context;

    ContextFactory(CliContext context) {
      this.context = context;
    }

    @Override
    public <K> K create(Class<K> type) throws Exception {
      try {
        Constructor<K> constructor = type.getDeclaredConstructor(CliContext.class);
        constructor.setAccessible(true);
        return constructor.newInstance(context);
      } catch (NoSuchMethodException e) {
        return CommandLine.defaultFactory().create(type);
      }
    }
  }

  /** The version from the jar manifest, or "dev" when run from classes. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = Main.class.getPackage().getImplementationVersion();
      return new String[] {"tcpopt " + (v == null ? "dev" : v)};
    }
  }
}
