package io.tcpopt.cli.operator;

import io.tcpopt.cli.CliContext;
import io.tcpopt.cli.output.Json;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;

/** Base of the commands that connect to a controller, run, print and disconnect. */
abstract class OperatorCommand implements Callable<Integer> {
  final CliContext context;

  @Mixin ControllerOptions controllerOptions;

  @Mixin OutputOptions output;

  OperatorCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public final Integer call() {
    try (ControllerClient client = context.connector().connect(controllerOptions.target(context))) {
      return execute(client);
    }
  }

  abstract int execute(ControllerClient client);

  void printJson(Object value) {
    context.out().println(Json.write(value));
  }
}
