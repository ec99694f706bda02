package io.tcpopt.cli.operator;

import io.tcpopt.cli.CliContext;
import io.tcpopt.cli.CliException;
import io.tcpopt.common.config.ConfigException;
import io.tcpopt.common.config.ConfigTree;
import io.tcpopt.common.policy.PolicyException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tcpopt policy apply|get|validate|diff|rollback}: manage the versioned data policy held by
 * the controllers. A policy is validated whole before activation; a refused one changes nothing.
 */
@Command(
    name = "policy",
    description = "Manage the data policy: apply, get, validate, diff, rollback.",
    subcommands = {
      PolicyCommand.Apply.class,
      PolicyCommand.Get.class,
      PolicyCommand.Validate.class,
      PolicyCommand.Diff.class,
      PolicyCommand.Rollback.class
    })
public final class PolicyCommand {
  PolicyCommand() {}

  /** The file's text; a missing or oversized file is one line (the size is checked before reading). */
  static String read(Path file) {
    if (!Files.exists(file)) {
      throw new CliException("cannot read policy file " + file + ": no such file");
    }
    try {
      return ConfigTree.readDocument(file);
    } catch (ConfigException e) {
      throw new CliException(e.getMessage());
    }
  }

  static Map<String, Object> versionJson(Views.PolicyVersion v, boolean withYaml) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("version", v.version());
    json.put("name", v.name());
    json.put("appliedAt", v.appliedAt() == null ? null : v.appliedAt().toString());
    if (withYaml) {
      json.put("yaml", v.yaml());
    }
    return json;
  }

  /** Base of the subcommands that take a policy file. */
  abstract static class WithFile extends OperatorCommand {
    @Option(names = {"-f", "--file"}, required = true, paramLabel = "FILE", description = "Policy YAML file.")
    Path file;

    WithFile(CliContext context) {
      super(context);
    }

    /** The file's policy, without the header line {@code policy get} writes. */
    String yaml() {
      String text = PolicyHeader.strip(read(file));
      try {
        LocalPolicy.check(text, file.toString());
      } catch (PolicyException | ConfigException e) {
        String message = e.getMessage();
        throw new CliException(message.startsWith(file.toString()) ? message : file + ": " + message);
      }
      return text;
    }
  }

  /**
   * The version a change is based on: {@code --expect-version}, else the active version read just
   * before the change, so that two operators racing each other are told rather than overwritten.
   */
  static long expectedActive(ControllerClient client, long option) {
    if (option > 0) {
      return option;
    }
    try {
      return client.policy(0).version();
    } catch (CliException e) {
      return 0; // no policy yet
    }
  }

  @Command(name = "apply", description = "Validate a policy file and make it the active policy.")
  static final class Apply extends WithFile {
    @Option(names = "--expect-version", paramLabel = "N",
        description = "Apply only if version N is still active (default: the version active when the command starts).")
    long expectVersion;

    Apply(CliContext context) {
      super(context);
    }

    @Override
    int execute(ControllerClient client) {
      String yaml = yaml();
      Views.PolicyVersion v = client.applyPolicy(yaml, file.toString(), expectedActive(client, expectVersion));
      if (output.json()) {
        printJson(versionJson(v, false));
      } else {
        context.out().printf("policy %s applied as version %d%n", v.name(), v.version());
      }
      return 0;
    }
  }

  @Command(name = "validate", description = "Check a policy file without applying it.")
  static final class Validate extends WithFile {
    Validate(CliContext context) {
      super(context);
    }

    @Override
    int execute(ControllerClient client) {
      List<Views.PolicyError> errors = client.validatePolicy(yaml(), file.toString());
      if (output.json()) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("valid", errors.isEmpty());
        List<Object> list = new ArrayList<>();
        for (Views.PolicyError e : errors) {
          Map<String, Object> error = new LinkedHashMap<>();
          error.put("path", e.path());
          error.put("reason", e.reason());
          list.add(error);
        }
        json.put("errors", list);
        printJson(json);
        return errors.isEmpty() ? 0 : 1;
      }
      if (errors.isEmpty()) {
        context.out().println(file + ": valid");
        return 0;
      }
      String more = errors.size() > 1 ? " (and " + (errors.size() - 1) + " more)" : "";
      throw new CliException(file + ": " + errors.get(0) + more);
    }
  }

  @Command(name = "get", description = "Print the active policy, or a stored version with --version.")
  static final class Get extends OperatorCommand {
    @Option(names = "--version", paramLabel = "N", description = "A stored version (default: the active one).")
    long version;

    Get(CliContext context) {
      super(context);
    }

    @Override
    int execute(ControllerClient client) {
      Views.PolicyVersion v = client.policy(version);
      if (output.json()) {
        printJson(versionJson(v, true));
      } else {
        context.out().print(PolicyHeader.of(v));
        context.out().print(v.yaml().endsWith("\n") ? v.yaml() : v.yaml() + "\n");
      }
      return 0;
    }
  }

  @Command(name = "diff", description = "Show how a policy file differs from the active policy (exit 0 when equal, 3 when not).")
  static final class Diff extends WithFile {
    Diff(CliContext context) {
      super(context);
    }

    @Override
    int execute(ControllerClient client) {
      List<String> diff = client.diff(yaml()).lines().toList();
      int body = diff.size() >= 2 && diff.get(0).startsWith("--- ") && diff.get(1).startsWith("+++ ") ? 2 : 0;
      boolean changed = diff.stream().skip(body).anyMatch(l -> l.startsWith("+") || l.startsWith("-"));
      List<String> lines = changed ? diff : List.of();
      if (output.json()) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("identical", lines.isEmpty());
        json.put("diff", lines);
        printJson(json);
      } else if (lines.isEmpty()) {
        context.out().println("no differences from the active policy");
      } else {
        lines.forEach(context.out()::println);
      }
      return lines.isEmpty() ? 0 : 3;
    }
  }

  @Command(name = "rollback", description = "Re-activate a stored policy version.")
  static final class Rollback extends OperatorCommand {
    @Option(names = "--version", required = true, paramLabel = "N", description = "The version to re-activate.")
    long version;

    @Option(names = "--expect-version", paramLabel = "N",
        description = "Roll back only if version N is still active (default: the version active when the command starts).")
    long expectVersion;

    Rollback(CliContext context) {
      super(context);
    }

    @Override
    int execute(ControllerClient client) {
      if (version <= 0) {
        throw new CliException("--version must be a positive policy version", CliException.USAGE);
      }
      Views.PolicyVersion v = client.rollback(version, expectedActive(client, expectVersion));
      if (output.json()) {
        printJson(versionJson(v, false));
      } else {
        context.out().printf("policy %s version %d re-activated as version %d%n", v.name(), version, v.version());
      }
      return 0;
    }
  }
}
