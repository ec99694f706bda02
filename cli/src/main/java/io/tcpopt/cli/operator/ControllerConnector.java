package io.tcpopt.cli.operator;

/** Opens a {@link ControllerClient}; the CLI uses gRPC, tests may substitute their own. */
@FunctionalInterface
public interface ControllerConnector {
  ControllerClient connect(ControllerTarget target);

  static ControllerConnector grpc() {
    return GrpcControllerClient::connect;
  }
}
