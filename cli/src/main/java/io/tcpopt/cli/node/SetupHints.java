package io.tcpopt.cli.node;

import io.tcpopt.common.config.ConfigException;
import io.tcpopt.common.config.ConfigTree;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Turns the errors a fresh checkout meets first into errors that say how to fix them: a missing
 * TLS file of a {@code tls:} section gets the {@code tcpopt certs} command that writes it (into the
 * directory the config names, for this node and the peers it lists), a missing operator token file
 * the command that makes one. Still one line.
 */
final class SetupHints {
  private static final Pattern TLS_FIELD = Pattern.compile("(service-node\\.wan|controller)\\.tls\\.(certificate|private-key|trusted)");
  private static final String NOT_FOUND = ": file not found";

  private SetupHints() {}

  static ConfigException withHint(ConfigException e, NodeConfig config) {
    if (TLS_FIELD.matcher(e.path()).matches() && e.reason().endsWith(NOT_FOUND)) {
      Path file = Path.of(e.reason().substring(0, e.reason().length() - NOT_FOUND.length()));
      return new ConfigException(e.path(), e.reason() + " (a lab CA and node certificates: " + certsCommand(file, config) + ")");
    }
    if (e.path().equals("controller.token-file") && config.controller().has("token-file")) {
      Path file = Path.of(config.controller().string("token-file"));
      if (!Files.exists(file)) {
        String mkdir = file.getParent() == null ? "" : "mkdir -p " + file.getParent() + " && ";
        return new ConfigException(e.path(), e.reason() + " (create one: " + mkdir + "head -c 24 /dev/urandom | base64 > " + file + ")");
      }
    }
    return e;
  }

  /** {@code tcpopt certs --out DIR --nodes NAMES}: this node, its configured peers, and the node the missing file is named after. */
  static String certsCommand(Path missing, NodeConfig config) {
    Set<String> nodes = new LinkedHashSet<>();
    nodes.add(config.name());
    if (config.serviceNode().isMap() && config.serviceNode().has("peers")) {
      for (ConfigTree peer : config.serviceNode().list("peers")) {
        if (peer.isMap() && peer.has("name")) {
          nodes.add(peer.string("name"));
        }
      }
    }
    String name = missing.getFileName().toString();
    if (!name.equals("ca.crt") && (name.endsWith(".crt") || name.endsWith(".key"))) {
      nodes.add(name.substring(0, name.length() - 4));
    }
    Path dir = missing.getParent() == null ? Path.of(".") : missing.getParent();
    // Certificates already issued there share the CA the command writes anew: issue them again too.
    try (java.util.stream.Stream<Path> files = Files.list(dir)) {
      files.map(f -> f.getFileName().toString()).filter(f -> f.endsWith(".crt") && !f.equals("ca.crt")).sorted()
          .forEach(f -> nodes.add(f.substring(0, f.length() - 4)));
    } catch (java.io.IOException e) {
      // No directory yet: nothing issued there.
    }
    return "tcpopt certs --out " + dir + " --nodes " + String.join(",", nodes);
  }
}
