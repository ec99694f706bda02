package io.tcpopt.common.policy;

import io.tcpopt.common.config.ConfigException;
import io.tcpopt.common.config.ConfigTree;
import io.tcpopt.common.profile.ClientSslProfile;
import io.tcpopt.common.profile.HttpReuseProfile;
import io.tcpopt.common.profile.LegProfiles;
import io.tcpopt.common.profile.ServerSslProfile;
import io.tcpopt.common.profile.ServiceProfiles;
import io.tcpopt.common.profile.TcpProfile;
import io.tcpopt.common.profile.TcpProfileDefinition;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * A complete, validated data policy: prefix lists, service-node groups, user TCP profiles, the
 * numbered sequences and the default action. Immutable; an instance exists only if the whole
 * document is valid, so applying one can never half-apply a policy.
 *
 * <pre>
 * prefix-lists:
 *   BR10: [198.18.1.0/24]
 *   DC100: [198.19.1.0/24, 2001:db8:100::/48]
 * service-node-groups:
 *   SNG-APPQOE: { site: branch }
 * sites:                            # what each site serves: its far nodes connect peers' streams only there
 *   dc: { serves: [DC100] }         # prefix lists or prefixes
 * tcp-profiles:
 *   bulk: { parent: tcp-wan-optimized, send-buffer: 32MiB }
 * http-reuse-profiles:                # and client-ssl-profiles, server-ssl-profiles (ServiceProfiles)
 *   web: { source-mask: 0.0.0.0, max-reuse: 500 }
 * data-policy:
 *   name: vpn10-appqoe
 *   sequences:
 *     - seq: 1
 *       match: { vpn: 10, source-prefix-list: BR10, destination-prefix-list: DC100, destination-port: [80, 443, 8000-8999] }
 *       action: { optimize: { service-node-group: SNG-APPQOE, profiles: { wan: bulk }, http-reuse: web,
 *                             data-reduction: { compression: zstd, deduplication: on } } }
 *     - seq: 21
 *       match: { destination-port: 22 }
 *       action: pass-through
 *   default-action: pass-through    # or drop; default pass-through
 * </pre>
 *
 * <p>Sequences are kept sorted by number; {@link #toYaml()} prints the canonical form, which parses
 * back to an equal document.
 */
public final class PolicyDocument {
  private final String name;
  private final Map<String, List<Cidr>> prefixLists;
  private final Map<String, ServiceNodeGroup> serviceNodeGroups;
  private final Map<String, List<Cidr>> siteServes;
  private final Map<String, TcpProfileDefinition> tcpProfiles;
  private final Map<String, TcpProfile> resolvedProfiles;
  private final ServiceProfiles serviceProfiles;
  private final List<Sequence> sequences;
  private final Action defaultAction;

  PolicyDocument(
      String name,
      Map<String, List<Cidr>> prefixLists,
      Map<String, ServiceNodeGroup> serviceNodeGroups,
      Map<String, List<Cidr>> siteServes,
      Map<String, TcpProfileDefinition> tcpProfiles,
      Map<String, TcpProfile> resolvedProfiles,
      ServiceProfiles serviceProfiles,
      List<Sequence> sequences,
      Action defaultAction) {
    this.name = Objects.requireNonNull(name);
    this.prefixLists = Collections.unmodifiableMap(new LinkedHashMap<>(prefixLists));
    this.serviceNodeGroups = Collections.unmodifiableMap(new LinkedHashMap<>(serviceNodeGroups));
    this.siteServes = Collections.unmodifiableMap(new LinkedHashMap<>(siteServes));
    this.tcpProfiles = Collections.unmodifiableMap(new LinkedHashMap<>(tcpProfiles));
    this.resolvedProfiles = Collections.unmodifiableMap(new LinkedHashMap<>(resolvedProfiles));
    this.serviceProfiles = Objects.requireNonNull(serviceProfiles);
    this.sequences = List.copyOf(sequences);
    this.defaultAction = Objects.requireNonNull(defaultAction);
  }

  /**
   * Parses and validates policy YAML.
   *
   * @param sourceName names the text in a YAML syntax error (a file name, "request", ...)
   * @throws PolicyException listing every problem found
   */
  public static PolicyDocument parse(String yaml, String sourceName) throws PolicyException {
    ConfigTree tree;
    try {
      tree = ConfigTree.parse(yaml, sourceName);
    } catch (ConfigException e) {
      throw new PolicyException(List.of(new FieldError(e.path(), e.reason())));
    }
    return fromTree(tree);
  }

  /**
   * Validates an already parsed tree, e.g. the {@code policy:} section of a node config; error
   * paths then start with that section's path.
   */
  public static PolicyDocument fromTree(ConfigTree tree) throws PolicyException {
    return PolicyParser.parse(tree);
  }

  /** The data policy's name ({@code data-policy.name}, default {@code data-policy}). */
  public String name() {
    return name;
  }

  /** Prefix lists by name, in document order. */
  public Map<String, List<Cidr>> prefixLists() {
    return prefixLists;
  }

  public Map<String, ServiceNodeGroup> serviceNodeGroups() {
    return serviceNodeGroups;
  }

  /**
   * The destinations each site serves ({@code sites: { NAME: { serves: [...] } }}), prefix lists
   * resolved to their prefixes, by site name in document order.
   */
  public Map<String, List<Cidr>> siteServes() {
    return siteServes;
  }

  /** The prefixes {@code site} serves by this policy; empty when the policy does not say. */
  public List<Cidr> servedBy(String site) {
    return siteServes.getOrDefault(site, List.of());
  }

  /** The user-defined profiles as written (overrides and parent); see {@link #resolvedProfiles()}. */
  public Map<String, TcpProfileDefinition> tcpProfiles() {
    return tcpProfiles;
  }

  /** Built-in and user profiles, fully resolved, by name. */
  public Map<String, TcpProfile> resolvedProfiles() {
    return resolvedProfiles;
  }

  /** The HTTP-reuse, client-SSL and server-SSL profiles, as written and resolved. */
  public ServiceProfiles serviceProfiles() {
    return serviceProfiles;
  }

  /** The sequences in ascending {@code seq} order: the order in which they are matched. */
  public List<Sequence> sequences() {
    return sequences;
  }

  /** {@link Action#PASS_THROUGH} or {@link Action#DROP}. */
  public Action defaultAction() {
    return defaultAction;
  }

  /** The resolved per-leg profiles of an optimize action of this document. */
  public LegProfiles legProfiles(SequenceAction action) {
    if (action.action() != Action.OPTIMIZE) {
      throw new IllegalArgumentException("only optimize actions have profiles");
    }
    ServiceProfileRefs refs = action.services();
    return new LegProfiles(
        resolvedProfiles.get(action.clientProfile()),
        resolvedProfiles.get(action.wanProfile()),
        resolvedProfiles.get(action.serverProfile()),
        serviceProfiles.resolved(ClientSslProfile.KIND, refs.clientSsl()),
        serviceProfiles.resolved(ServerSslProfile.KIND, refs.serverSsl()),
        serviceProfiles.resolved(HttpReuseProfile.KIND, refs.httpReuse()));
  }

  /** The canonical YAML text of this document. */
  public String toYaml() {
    Map<String, Object> root = new LinkedHashMap<>();
    if (!prefixLists.isEmpty()) {
      Map<String, Object> lists = new LinkedHashMap<>();
      prefixLists.forEach((n, cidrs) -> lists.put(n, cidrs.stream().map(Cidr::toString).toList()));
      root.put("prefix-lists", lists);
    }
    if (!serviceNodeGroups.isEmpty()) {
      Map<String, Object> groups = new LinkedHashMap<>();
      serviceNodeGroups.forEach((n, g) -> groups.put(n, Map.of("site", g.site())));
      root.put("service-node-groups", groups);
    }
    if (!siteServes.isEmpty()) {
      Map<String, Object> sites = new LinkedHashMap<>();
      siteServes.forEach((n, cidrs) -> sites.put(n, Map.of("serves", cidrs.stream().map(Cidr::toString).toList())));
      root.put("sites", sites);
    }
    if (!tcpProfiles.isEmpty()) {
      Map<String, Object> profiles = new LinkedHashMap<>();
      tcpProfiles.forEach((n, d) -> profiles.put(n, d.toYamlMap()));
      root.put("tcp-profiles", profiles);
    }
    serviceProfiles.addYaml(root);
    Map<String, Object> policy = new LinkedHashMap<>();
    policy.put("name", name);
    List<Object> seqs = new ArrayList<>();
    for (Sequence s : sequences) {
      seqs.add(sequenceYaml(s));
    }
    policy.put("sequences", seqs);
    policy.put("default-action", defaultAction.yamlName());
    root.put("data-policy", policy);

    DumperOptions options = new DumperOptions();
    options.setDefaultFlowStyle(DumperOptions.FlowStyle.AUTO);
    options.setWidth(160);
    options.setIndent(2);
    return new Yaml(options).dump(root);
  }

  private static Map<String, Object> sequenceYaml(Sequence s) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("seq", s.seq());
    Match m = s.match();
    Map<String, Object> match = new LinkedHashMap<>();
    if (!m.vpns().isEmpty()) {
      match.put("vpn", m.vpns().size() == 1 ? m.vpns().get(0) : m.vpns());
    }
    if (m.sourcePrefixList() != null) {
      match.put("source-prefix-list", m.sourcePrefixList());
    }
    if (m.destinationPrefixList() != null) {
      match.put("destination-prefix-list", m.destinationPrefixList());
    }
    if (!m.sourcePorts().isEmpty()) {
      match.put("source-port", portsYaml(m.sourcePorts()));
    }
    if (!m.destinationPorts().isEmpty()) {
      match.put("destination-port", portsYaml(m.destinationPorts()));
    }
    if (m.protocol() != null) {
      match.put("protocol", m.protocol());
    }
    if (!match.isEmpty()) {
      out.put("match", match);
    }
    SequenceAction a = s.action();
    if (a.action() == Action.OPTIMIZE) {
      Map<String, Object> profiles = new LinkedHashMap<>();
      profiles.put("client", a.clientProfile());
      profiles.put("wan", a.wanProfile());
      profiles.put("server", a.serverProfile());
      Map<String, Object> optimize = new LinkedHashMap<>();
      optimize.put("service-node-group", a.serviceNodeGroup());
      optimize.put("profiles", profiles);
      if (!a.dataReduction().isOff()) {
        optimize.put("data-reduction", a.dataReduction().toYamlMap());
      }
      putIfSet(optimize, "http-reuse", a.services().httpReuse());
      putIfSet(optimize, "client-ssl", a.services().clientSsl());
      putIfSet(optimize, "server-ssl", a.services().serverSsl());
      out.put("action", Map.of("optimize", optimize));
    } else {
      out.put("action", a.action().yamlName());
    }
    return out;
  }

  private static void putIfSet(Map<String, Object> m, String key, String value) {
    if (value != null) {
      m.put(key, value);
    }
  }

  private static Object portsYaml(List<PortRange> ranges) {
    List<Object> out = new ArrayList<>();
    for (PortRange r : ranges) {
      out.add(r.low() == r.high() ? (Object) r.low() : r.toString());
    }
    return out.size() == 1 ? out.get(0) : out;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof PolicyDocument)) {
      return false;
    }
    PolicyDocument d = (PolicyDocument) o;
    return name.equals(d.name)
        && prefixLists.equals(d.prefixLists)
        && serviceNodeGroups.equals(d.serviceNodeGroups)
        && siteServes.equals(d.siteServes)
        && tcpProfiles.equals(d.tcpProfiles)
        && serviceProfiles.equals(d.serviceProfiles)
        && sequences.equals(d.sequences)
        && defaultAction == d.defaultAction;
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, prefixLists, serviceNodeGroups, siteServes, tcpProfiles, serviceProfiles, sequences, defaultAction);
  }

  @Override
  public String toString() {
    return "PolicyDocument[" + name + ", " + sequences.size() + " sequences, default " + defaultAction.yamlName() + "]";
  }
}
