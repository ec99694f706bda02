package io.tcpopt.cli.node;

import io.tcpopt.cli.CliContext;
import io.tcpopt.cli.CliException;
import io.tcpopt.common.tls.DemoCertificates;
import io.tcpopt.common.tls.TlsFiles;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tcpopt certs --out DIR --nodes a,b}: a self-made CA and one certificate per node (SAN: the
 * node name, localhost, 127.0.0.1) as PEM files, for labs and testbeds. Production deployments use
 * their own PKI (docs/operations.md).
 */
@Command(name = "certs", description = "Generate a demo CA and node certificates (PEM) for a lab or testbed.")
public final class CertsCommand implements Callable<Integer> {
  private final CliContext context;

  @Option(names = "--out", required = true, paramLabel = "DIR", description = "Directory to write ca.crt, NODE.crt and NODE.key into.")
  Path out;

  @Option(names = "--nodes", required = true, split = ",", paramLabel = "NAME", description = "Node names, comma-separated.")
  List<String> nodes;

  CertsCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() {
    Map<String, TlsFiles> files;
    try {
      files = DemoCertificates.generate(out, nodes);
    } catch (IllegalArgumentException e) {
      throw new CliException("--nodes: " + e.getMessage(), CliException.USAGE);
    } catch (UncheckedIOException e) {
      throw new CliException("cannot write certificates to " + out + ": " + e.getCause().getMessage());
    }
    for (Map.Entry<String, TlsFiles> e : files.entrySet()) {
      context.out().printf("%s: certificate %s, private key %s, trusted %s%n", e.getKey(),
          e.getValue().certificateChain(), e.getValue().privateKey(), e.getValue().trustedCertificates());
    }
    return 0;
  }
}
