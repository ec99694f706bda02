package io.tcpopt.controller.policy;

import io.tcpopt.common.config.ConfigTree;
import io.tcpopt.common.policy.CompiledPolicy;
import io.tcpopt.common.policy.PolicyDocument;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The active policy as this controller enforces it: the stored version, its validated document,
 * the compiled classifier, and the site of each service-node group.
 */
public record ActivePolicy(
    PolicyVersion version, PolicyDocument document, CompiledPolicy compiled, Map<String, String> groupSites) {

  public ActivePolicy {
    groupSites = Map.copyOf(groupSites);
  }

  static ActivePolicy of(PolicyVersion version) {
    PolicyDocument document = PolicyDocument.parse(version.yaml(), "policy version " + version.version());
    return new ActivePolicy(version, document, CompiledPolicy.compile(document), groupSites(version.yaml()));
  }

  /** Group name to site, read from the already validated document's YAML. */
  static Map<String, String> groupSites(String yaml) {
    Map<String, String> sites = new LinkedHashMap<>();
    ConfigTree groups = ConfigTree.parse(yaml, "policy").section("service-node-groups");
    if (groups.isMap()) {
      for (Map.Entry<String, ConfigTree> e : groups.entries().entrySet()) {
        ConfigTree g = e.getValue();
        sites.put(e.getKey(), g.isMap() && g.has("site") ? g.string("site") : "");
      }
    }
    return sites;
  }

  public long versionNumber() {
    return version.version();
  }
}
