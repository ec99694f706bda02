package io.tcpopt.cli.demo;

import io.tcpopt.cli.CliRun;
import io.tcpopt.cli.operator.ControllerConnector;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One demo cluster for a test class, started before its first test and closed after its last, and
 * the CLI run against it as its operator. Register it as a static field with
 * {@code @RegisterExtension}.
 */
final class DemoClusterExtension implements BeforeAllCallback, AfterAllCallback {
  private DemoCluster demo;

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    demo = DemoCluster.start(0, line -> {});
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (demo != null) {
      demo.close();
      demo = null;
    }
  }

  DemoCluster demo() {
    return demo;
  }

  /** Runs the CLI with {@code args} against the cluster's controller, signed in with its token. */
  CliRun cli(String... args) {
    String[] all = new String[args.length + 2];
    System.arraycopy(args, 0, all, 0, args.length);
    all[args.length] = "--controller=" + demo.controller();
    all[args.length + 1] = "--token=" + demo.token();
    return CliRun.run(ControllerConnector.grpc(), all);
  }
}
