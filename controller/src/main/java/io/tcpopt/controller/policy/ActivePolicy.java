package io.tcpopt.controller.policy;

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
    PolicyDocument document = PolicyDocument.parse(version.yaml(), version.version() == 0 ? "policy" : "policy version " + version.version());
    return new ActivePolicy(version, document, CompiledPolicy.compile(document), groupSites(document));
  }

  /** Group name to site. */
  static Map<String, String> groupSites(PolicyDocument document) {
    Map<String, String> sites = new LinkedHashMap<>();
    document.serviceNodeGroups().forEach((name, group) -> sites.put(name, group.site()));
    return sites;
  }

  public long versionNumber() {
    return version.version();
  }
}
