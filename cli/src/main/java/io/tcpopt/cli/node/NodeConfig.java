package io.tcpopt.cli.node;

import io.tcpopt.common.config.ConfigException;
import io.tcpopt.common.config.ConfigTree;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The node configuration file of {@code run --config}: who the node is ({@code node:}), which roles
 * it plays, and the sections each role parses itself ({@code service-node:}, {@code policy:},
 * {@code controller:}); {@code metrics.listen} is the scrape endpoint (absent: no endpoint). Every
 * mistake is one {@link ConfigException} naming the field. Relative file paths inside (certificates,
 * token files) are resolved against the working directory.
 *
 * @param name node name, unique in the cluster (required)
 * @param site the site the node belongs to (required)
 * @param roles controller and/or service-node (required, at least one)
 * @param metricsListen the Prometheus endpoint, or {@code null} for none
 * @param controllers {@code node.controller}: the gRPC addresses of the site's controllers (one
 *     {@code HOST:PORT}, or a list) that an external service node registers with and takes its
 *     policy from, in order of preference, failing over along the list; empty for other nodes
 */
public record NodeConfig(
    String name,
    String site,
    Set<Role> roles,
    ConfigTree serviceNode,
    ConfigTree policy,
    ConfigTree controller,
    InetSocketAddress metricsListen,
    List<InetSocketAddress> controllers) {

  public NodeConfig {
    controllers = List.copyOf(controllers);
  }

  public static NodeConfig load(Path file) {
    if (!Files.isRegularFile(file)) {
      throw new ConfigException("", "config file " + file + (Files.exists(file) ? " is not a regular file" : " does not exist"));
    }
    return from(ConfigTree.load(file));
  }

  public static NodeConfig from(ConfigTree root) {
    if (!root.isMap()) {
      throw root.error("expected a mapping with node:, service-node:, policy:, controller:, metrics:");
    }
    root.requireOnly("node", "service-node", "policy", "controller", "metrics");
    ConfigTree node = root.get("node").requireOnly("name", "site", "roles", "controller");
    String name = nonBlank(node, "name");
    String site = nonBlank(node, "site");
    ConfigTree rolesTree = node.get("roles");
    Set<Role> roles = EnumSet.noneOf(Role.class);
    for (ConfigTree item : rolesTree.items()) {
      if (!roles.add(Role.parse(item))) {
        throw item.error("role listed twice");
      }
    }
    if (roles.isEmpty()) {
      throw rolesTree.error("list at least one role: controller, service-node");
    }
    if (roles.contains(Role.SERVICE_NODE) && !root.has("service-node")) {
      throw new ConfigException("service-node", "is required when node.roles includes service-node");
    }
    if (!roles.contains(Role.SERVICE_NODE) && root.has("service-node")) {
      throw new ConfigException("service-node", "is set but node.roles does not include service-node");
    }
    if (!roles.contains(Role.CONTROLLER) && root.has("controller")) {
      throw new ConfigException("controller", "is set but node.roles does not include controller");
    }
    List<InetSocketAddress> controllers = new ArrayList<>();
    if (node.has("controller")) {
      ConfigTree field = node.get("controller");
      if (roles.contains(Role.CONTROLLER) || !roles.contains(Role.SERVICE_NODE)) {
        throw field.error("only for an external service node (roles: [service-node]); an integrated node uses its own controller");
      }
      if (field.isList()) {
        for (ConfigTree item : field.items()) {
          controllers.add(item.asSocketAddress());
        }
        if (controllers.isEmpty()) {
          throw field.error("list at least one controller HOST:PORT");
        }
      } else {
        controllers.add(field.asSocketAddress());
      }
    }
    InetSocketAddress metrics = null;
    if (root.has("metrics")) {
      ConfigTree m = root.get("metrics").requireOnly("listen");
      metrics = m.socketAddress("listen");
    }
    return new NodeConfig(name, site, Set.copyOf(roles), root.section("service-node"), root.section("policy"),
        root.section("controller"), metrics, controllers);
  }

  private static String nonBlank(ConfigTree section, String key) {
    String value = section.string(key).trim();
    if (value.isEmpty()) {
      throw section.get(key).error("must not be empty");
    }
    return value;
  }

  public boolean integrated() {
    return roles.size() == 2;
  }
}
