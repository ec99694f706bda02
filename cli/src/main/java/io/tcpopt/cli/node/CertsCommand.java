package io.tcpopt.cli.node;

import io.tcpopt.cli.CliContext;
import io.tcpopt.cli.CliException;
import io.tcpopt.common.tls.DemoCertificates;
import io.tcpopt.common.tls.TlsFiles;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tcpopt certs --out DIR --nodes a,b [--operators alice]}: a self-made CA and one certificate
 * per node (SAN: the node name, localhost, 127.0.0.1), and, with {@code --operators}, a second CA
 * ({@code operator-ca.crt}) with one client certificate per operator, as PEM files, for labs and
 * testbeds. Operator certificates are told from node certificates by their CA: a controller names
 * {@code operator-ca.crt} as its {@code operator-ca}. Production deployments use their own PKI
 * (docs/operations.md).
 */
@Command(name = "certs", description = "Generate demo CAs with node and operator certificates (PEM) for a lab or testbed.")
public final class CertsCommand implements Callable<Integer> {
  private final CliContext context;

  @Option(names = "--out", required = true, paramLabel = "DIR", description = "Directory to write the CA(s), NAME.crt and NAME.key into.")
  Path out;

  @Option(names = "--nodes", split = ",", paramLabel = "NAME", description = "Node names, comma-separated (CA: ca.crt).")
  List<String> nodes = List.of();

  @Option(names = "--operators", split = ",", paramLabel = "NAME",
      description = "Operator names, comma-separated: client certificates from a separate CA (operator-ca.crt) for controller.operator-ca.")
  List<String> operators = List.of();

  CertsCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() {
    if (nodes.isEmpty() && operators.isEmpty()) {
      throw new CliException("give --nodes NAME,... and/or --operators NAME,...", CliException.USAGE);
    }
    Set<String> clash = new HashSet<>(nodes);
    clash.retainAll(operators);
    if (!clash.isEmpty()) {
      throw new CliException("--nodes and --operators both name " + clash + ": their files would overwrite each other", CliException.USAGE);
    }
    if (!nodes.isEmpty()) {
      print(generate("--nodes", () -> DemoCertificates.generate(out, nodes)), "trusted");
    }
    if (!operators.isEmpty()) {
      print(generate("--operators", () -> DemoCertificates.generateOperators(out, operators)), "operator CA (controller.operator-ca)");
    }
    return 0;
  }

  private interface Generator {
    Map<String, TlsFiles> generate();
  }

  private Map<String, TlsFiles> generate(String option, Generator generator) {
    try {
      return generator.generate();
    } catch (IllegalArgumentException e) {
      throw new CliException(option + ": " + e.getMessage(), CliException.USAGE);
    } catch (UncheckedIOException e) {
      throw new CliException("cannot write certificates to " + out + ": " + e.getCause().getMessage());
    }
  }

  private void print(Map<String, TlsFiles> files, String caLabel) {
    for (Map.Entry<String, TlsFiles> e : files.entrySet()) {
      context.out().printf("%s: certificate %s, private key %s, %s %s%n", e.getKey(),
          e.getValue().certificateChain(), e.getValue().privateKey(), caLabel, e.getValue().trustedCertificates());
    }
  }
}
