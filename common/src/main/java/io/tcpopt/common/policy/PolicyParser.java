package io.tcpopt.common.policy;

import io.tcpopt.common.config.ConfigException;
import io.tcpopt.common.config.ConfigTree;
import io.tcpopt.common.profile.ClientSslProfile;
import io.tcpopt.common.profile.HttpReuseProfile;
import io.tcpopt.common.profile.LegProfiles;
import io.tcpopt.common.profile.ProfileKind;
import io.tcpopt.common.profile.ServerSslProfile;
import io.tcpopt.common.profile.ServiceProfiles;
import io.tcpopt.common.profile.TcpProfile;
import io.tcpopt.common.profile.TcpProfileDefinition;
import io.tcpopt.common.profile.TcpProfiles;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Reads and validates a policy tree, collecting every problem as a {@link FieldError} instead of
 * stopping at the first, so that an operator fixes a policy in one round. One instance per parse.
 */
final class PolicyParser {
  static final String DEFAULT_NAME = "data-policy";
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.\\-]{0,63}");
  private static final Pattern RANGE = Pattern.compile("\\s*(\\d{1,5})\\s*-\\s*(\\d{1,5})\\s*");

  private final List<FieldError> errors = new ArrayList<>();
  private ServiceProfiles services = ServiceProfiles.NONE;

  static PolicyDocument parse(ConfigTree root) {
    return new PolicyParser().document(root);
  }

  private void error(String path, String reason) {
    errors.add(new FieldError(path, reason));
  }

  private void error(ConfigTree at, String reason) {
    error(at.path(), reason);
  }

  /** Runs {@code read}, turning a {@link ConfigException} into a collected error and {@code null}. */
  private <T> T read(Supplier<T> read) {
    try {
      return read.get();
    } catch (ConfigException e) {
      error(e.path(), e.reason());
      return null;
    }
  }

  private boolean check(Runnable r) {
    try {
      r.run();
      return true;
    } catch (ConfigException e) {
      error(e.path(), e.reason());
      return false;
    }
  }

  private PolicyDocument document(ConfigTree root) {
    if (!root.isMap()) {
      throw new PolicyException(List.of(new FieldError(root.path(), "expected a policy mapping")));
    }
    check(() -> root.requireOnly("prefix-lists", "service-node-groups", "sites", "tcp-profiles", "http-reuse-profiles", "client-ssl-profiles",
        "server-ssl-profiles", "data-policy", "default-action"));
    Map<String, List<Cidr>> prefixLists = prefixLists(root.section("prefix-lists"));
    Map<String, ServiceNodeGroup> groups = groups(root.section("service-node-groups"));
    Map<String, List<Cidr>> sites = sites(root.section("sites"), prefixLists);

    Map<String, TcpProfileDefinition> definitions = new LinkedHashMap<>();
    ConfigTree profilesTree = root.section("tcp-profiles");
    Map<String, ConfigTree> profileEntries = read(profilesTree::entries);
    if (profileEntries != null) {
      profileEntries.forEach(
          (name, tree) -> {
            if (checkName(tree, name, "profile")) {
              definitions.put(name, TcpProfileDefinition.parse(name, tree, this::error));
            }
          });
    }
    Map<String, TcpProfile> profiles = TcpProfiles.resolve(definitions, profilesTree.path(), this::error);
    services = ServiceProfiles.parse(root, this::error, (tree, n) -> checkName(tree, n, "profile"));

    String name = DEFAULT_NAME;
    List<Sequence> sequences = new ArrayList<>();
    Action defaultAction = Action.PASS_THROUGH;
    ConfigTree policy = root.section("data-policy");
    if (!policy.isMap()) {
      error(policy, "expected a mapping with name, sequences and default-action");
    } else {
      check(() -> policy.requireOnly("name", "sequences", "default-action"));
      if (policy.has("name")) {
        String n = read(() -> policy.string("name").trim());
        if (n != null && checkName(policy.get("name"), n, "policy")) {
          name = n;
        }
      }
      List<ConfigTree> items = read(() -> policy.list("sequences"));
      if (items != null && items.isEmpty()) {
        error(policy, "no sequences");
      }
      Map<Integer, Integer> seen = new HashMap<>();
      for (ConfigTree item : items == null ? List.<ConfigTree>of() : items) {
        Sequence s = sequence(item, prefixLists.keySet(), groups.keySet(), definitions.keySet(), seen);
        if (s != null) {
          sequences.add(s);
        }
      }
      if (policy.has("default-action") && root.has("default-action")) {
        error(root.path().isEmpty() ? "default-action" : root.path() + ".default-action",
            "given twice, also in data-policy.default-action; keep one");
      }
      ConfigTree da = policy.has("default-action") ? policy.get("default-action") : root.has("default-action") ? root.get("default-action") : null;
      if (da != null) {
        Action a = defaultAction(da);
        if (a != null) {
          defaultAction = a;
        }
      }
    }
    if (!errors.isEmpty()) {
      throw new PolicyException(errors);
    }
    sequences.sort(Comparator.comparingInt(Sequence::seq));
    return new PolicyDocument(name, prefixLists, groups, sites, definitions, profiles, services, sequences, defaultAction);
  }

  /**
   * {@code sites: { NAME: { serves: [ITEM, ...] } }}: the destinations each site serves, each item a
   * prefix-list name or a prefix; resolved to prefixes, in order, without duplicates.
   */
  private Map<String, List<Cidr>> sites(ConfigTree section, Map<String, List<Cidr>> lists) {
    Map<String, List<Cidr>> out = new LinkedHashMap<>();
    Map<String, ConfigTree> entries = read(section::entries);
    if (entries == null) {
      return out;
    }
    entries.forEach(
        (name, tree) -> {
          if (!checkName(tree, name, "site")) {
            return;
          }
          check(() -> tree.requireOnly("serves"));
          List<ConfigTree> items = read(() -> tree.list("serves"));
          if (items == null) {
            return;
          }
          if (items.isEmpty()) {
            error(tree, "serves nothing: list prefix lists or prefixes");
          }
          LinkedHashSet<Cidr> cidrs = new LinkedHashSet<>();
          for (ConfigTree item : items) {
            String text = read(item::asString);
            if (text == null) {
              continue;
            }
            List<Cidr> named = lists.get(text.trim());
            if (named != null) {
              cidrs.addAll(named);
              continue;
            }
            try {
              cidrs.add(Cidr.parse(text.trim()));
            } catch (IllegalArgumentException e) {
              error(item, "neither a prefix list nor a prefix: " + e.getMessage());
            }
          }
          out.put(name, List.copyOf(cidrs));
        });
    return out;
  }

  private boolean checkName(ConfigTree at, String name, String what) {
    if (!NAME.matcher(name).matches()) {
      error(at, "bad " + what + " name \"" + name + "\" (letters, digits, . _ -, at most 64)");
      return false;
    }
    return true;
  }

  private Map<String, List<Cidr>> prefixLists(ConfigTree section) {
    Map<String, List<Cidr>> out = new LinkedHashMap<>();
    Map<String, ConfigTree> entries = read(section::entries);
    if (entries == null) {
      return out;
    }
    entries.forEach(
        (name, tree) -> {
          checkName(tree, name, "prefix list");
          List<Cidr> cidrs = new ArrayList<>();
          out.put(name, cidrs); // known even when broken, so references to it report no second error
          // A single prefix may be written without brackets.
          List<ConfigTree> items = tree.isMap() || tree.isList() ? read(tree::items) : List.of(tree);
          if (items == null) {
            return;
          }
          if (items.isEmpty()) {
            error(tree, "empty prefix list");
          }
          for (ConfigTree item : items) {
            String text = read(item::asString);
            if (text == null) {
              continue;
            }
            try {
              cidrs.add(Cidr.parse(text));
            } catch (IllegalArgumentException e) {
              error(item, e.getMessage());
            }
          }
        });
    out.replaceAll((k, v) -> List.copyOf(v));
    return out;
  }

  private Map<String, ServiceNodeGroup> groups(ConfigTree section) {
    Map<String, ServiceNodeGroup> out = new LinkedHashMap<>();
    Map<String, ConfigTree> entries = read(section::entries);
    if (entries == null) {
      return out;
    }
    entries.forEach(
        (name, tree) -> {
          checkName(tree, name, "service-node group");
          check(() -> tree.requireOnly("site"));
          String site = read(() -> tree.string("site").trim());
          out.put(name, new ServiceNodeGroup(name, site == null ? "" : site));
        });
    return out;
  }

  private Sequence sequence(
      ConfigTree item, Set<String> lists, Set<String> groups, Set<String> userProfiles, Map<Integer, Integer> seen) {
    if (!item.isMap()) {
      error(item, "expected a mapping with seq, match and action");
      return null;
    }
    check(() -> item.requireOnly("seq", "match", "action"));
    Integer seq = read(() -> (int) item.get("seq").asLong(1, Integer.MAX_VALUE));
    if (seq != null && seen.putIfAbsent(seq, seq) != null) {
      error(item.path() + ".seq", "duplicate sequence number " + seq);
    }
    Match match = match(item.section("match"), lists);
    SequenceAction action = item.has("action") ? action(item.get("action"), groups, userProfiles) : null;
    if (!item.has("action")) {
      error(item.path() + ".action", "is required (optimize, pass-through or drop)");
    }
    return seq == null || match == null || action == null ? null : new Sequence(seq, match, action);
  }

  private Match match(ConfigTree m, Set<String> lists) {
    if (!m.isMap()) {
      error(m, "expected a mapping of conditions");
      return null;
    }
    int before = errors.size();
    check(
        () ->
            m.requireOnly(
                "vpn", "source-prefix-list", "destination-prefix-list", "source-port", "destination-port", "protocol"));
    List<Integer> vpns = new ArrayList<>();
    if (m.has("vpn")) {
      ConfigTree v = m.get("vpn");
      for (ConfigTree one : v.isList() ? v.items() : List.of(v)) {
        Integer vpn = vpn(one);
        if (vpn != null) {
          vpns.add(vpn);
        }
      }
    }
    String source = prefixListRef(m, "source-prefix-list", lists);
    String destination = prefixListRef(m, "destination-prefix-list", lists);
    List<PortRange> sourcePorts = ports(m, "source-port");
    List<PortRange> destinationPorts = ports(m, "destination-port");
    String protocol = null;
    if (m.has("protocol")) {
      protocol = read(() -> m.string("protocol").trim());
      if (protocol != null && !protocol.equals("tcp")) {
        error(m.get("protocol"), "unsupported protocol \"" + protocol + "\" (tcpopt handles tcp only)");
      }
    }
    return errors.size() > before ? null : new Match(vpns, source, destination, sourcePorts, destinationPorts, protocol);
  }

  private Integer vpn(ConfigTree v) {
    Object raw = v.raw();
    String text = String.valueOf(raw).trim();
    if (raw instanceof Integer || (raw instanceof String && text.matches("\\d{1,5}"))) {
      int n = Integer.parseInt(text);
      if (n <= 65535) {
        return n;
      }
    }
    error(v, "bad vpn " + (raw instanceof String ? "\"" + text + "\"" : text) + " (expected a number 0-65535)");
    return null;
  }

  private String prefixListRef(ConfigTree m, String key, Set<String> lists) {
    if (!m.has(key)) {
      return null;
    }
    String name = read(() -> m.string(key).trim());
    if (name != null && !lists.contains(name)) {
      error(m.get(key), "unknown prefix list \"" + name + "\"");
    }
    return name;
  }

  private List<PortRange> ports(ConfigTree m, String key) {
    List<PortRange> out = new ArrayList<>();
    if (!m.has(key)) {
      return out;
    }
    ConfigTree p = m.get(key);
    List<ConfigTree> items = p.isList() ? p.items() : List.of(p);
    if (items.isEmpty()) {
      error(p, "empty port list");
    }
    for (ConfigTree one : items) {
      PortRange r = portRange(one);
      if (r != null) {
        out.add(r);
      }
    }
    return out;
  }

  private PortRange portRange(ConfigTree t) {
    Object raw = t.raw();
    String text = String.valueOf(raw).trim();
    if (raw instanceof Integer || (raw instanceof String && text.matches("\\d{1,5}"))) {
      int port = Integer.parseInt(text);
      if (port <= 65535) {
        return new PortRange(port, port);
      }
      error(t, "bad port \"" + text + "\" (expected 0-65535)");
      return null;
    }
    var m = RANGE.matcher(text);
    if (raw instanceof String && m.matches()) {
      int low = Integer.parseInt(m.group(1));
      int high = Integer.parseInt(m.group(2));
      if (low <= high && high <= 65535) {
        return new PortRange(low, high);
      }
    }
    error(t, "bad port range \"" + text + "\" (expected N or N-M with 0 <= N <= M <= 65535)");
    return null;
  }

  private SequenceAction action(ConfigTree a, Set<String> groups, Set<String> userProfiles) {
    if (!a.isMap()) {
      String word = String.valueOf(a.raw()).trim();
      switch (word) {
        case "pass-through":
          return SequenceAction.PASS_THROUGH;
        case "drop":
          return SequenceAction.DROP;
        case "optimize":
          error(a, "optimize needs a service-node group: write optimize: { service-node-group: NAME }");
          return null;
        default:
          error(a, "unknown action \"" + word + "\" (expected optimize, pass-through or drop)");
          return null;
      }
    }
    List<String> keys = a.keys();
    if (keys.size() != 1) {
      error(a, "expected exactly one of optimize, pass-through or drop, got " + (keys.isEmpty() ? "none" : String.join(", ", keys)));
      return null;
    }
    String key = keys.get(0);
    ConfigTree body = a.section(key);
    switch (key) {
      case "pass-through":
      case "drop":
        if (!body.isMap() || !body.keys().isEmpty()) {
          error(body, key + " takes no settings (write " + key + ": {} or just " + key + ")");
          return null;
        }
        return key.equals("drop") ? SequenceAction.DROP : SequenceAction.PASS_THROUGH;
      case "optimize":
        return optimize(body, groups, userProfiles);
      default:
        error(a.path() + "." + key, "unknown action \"" + key + "\" (expected optimize, pass-through or drop)");
        return null;
    }
  }

  private SequenceAction optimize(ConfigTree o, Set<String> groups, Set<String> userProfiles) {
    int before = errors.size();
    if (!o.isMap()) {
      error(o, "expected a mapping with service-node-group and optional profiles");
      return null;
    }
    check(() -> o.requireOnly("service-node-group", "profiles", "data-reduction", "http-reuse", "client-ssl", "server-ssl"));
    String group = read(() -> o.string("service-node-group").trim());
    if (group != null && !groups.contains(group)) {
      error(o.get("service-node-group"), "unknown service-node group \"" + group + "\"");
    }
    ConfigTree p = o.section("profiles");
    if (!p.isMap()) {
      error(p, "expected a mapping with client, wan and server");
      return null;
    }
    check(() -> p.requireOnly("client", "wan", "server"));
    String client = profileRef(p, "client", LegProfiles.DEFAULT_CLIENT, userProfiles);
    String wan = profileRef(p, "wan", LegProfiles.DEFAULT_WAN, userProfiles);
    String server = profileRef(p, "server", LegProfiles.DEFAULT_SERVER, userProfiles);
    DataReduction reduction = o.has("data-reduction") ? dataReduction(o.get("data-reduction")) : DataReduction.OFF;
    ServiceProfileRefs refs = new ServiceProfileRefs(
        serviceRef(o, HttpReuseProfile.KIND), serviceRef(o, ClientSslProfile.KIND), serviceRef(o, ServerSslProfile.KIND));
    ClientSslProfile clientSsl = services.resolved(ClientSslProfile.KIND, refs.clientSsl());
    if (clientSsl != null && !clientSsl.hasCertificate()) {
      error(o.get("client-ssl"), "client-ssl profile \"" + refs.clientSsl() + "\" names no certificate and private-key");
    }
    if (errors.size() > before || group == null || client == null || wan == null || server == null || reduction == null) {
      return null;
    }
    return SequenceAction.optimize(group, client, wan, server, refs).withDataReduction(reduction);
  }

  /** An optional reference to an application profile of {@code kind} ({@code http-reuse: NAME}, ...). */
  private String serviceRef(ConfigTree o, ProfileKind<?> kind) {
    if (!o.has(kind.what())) {
      return null;
    }
    String name = read(() -> o.string(kind.what()).trim());
    if (name != null && !services.defines(kind, name)) {
      error(o.get(kind.what()), "unknown " + kind.what() + " profile \"" + name + "\"");
    }
    return name;
  }

  /** {@code data-reduction: { compression: none|lz4|zstd, deduplication: on|off }}, both optional. */
  private DataReduction dataReduction(ConfigTree d) {
    if (!d.isMap()) {
      error(d, "expected a mapping with compression (none, lz4, zstd) and deduplication (on, off)");
      return null;
    }
    int before = errors.size();
    check(() -> d.requireOnly("compression", "deduplication"));
    DataReduction.Compression compression = DataReduction.Compression.NONE;
    if (d.has("compression")) {
      String word = read(() -> d.string("compression").trim());
      compression = word == null ? null : DataReduction.Compression.ofYaml(word);
      if (word != null && compression == null) {
        error(d.get("compression"), "unknown compression \"" + word + "\" (expected none, lz4 or zstd)");
      }
    }
    Boolean dedup = d.has("deduplication") ? onOff(d.get("deduplication")) : Boolean.FALSE;
    return errors.size() > before ? null : new DataReduction(compression, dedup);
  }

  /** YAML reads on/off/true/false as booleans; a quoted "on" or "off" is accepted too. */
  private Boolean onOff(ConfigTree t) {
    Object raw = t.raw();
    if (raw instanceof Boolean) {
      return (Boolean) raw;
    }
    String word = String.valueOf(raw).trim();
    if (word.equals("on") || word.equals("true")) {
      return true;
    }
    if (word.equals("off") || word.equals("false")) {
      return false;
    }
    error(t, "expected on or off, got \"" + word + "\"");
    return null;
  }

  private String profileRef(ConfigTree p, String leg, String defaultName, Set<String> userProfiles) {
    if (!p.has(leg)) {
      return defaultName;
    }
    String name = read(() -> p.string(leg).trim());
    if (name != null && !TcpProfiles.isBuiltIn(name) && !userProfiles.contains(name)) {
      error(p.get(leg), "unknown TCP profile \"" + name + "\"");
    }
    return name;
  }

  private Action defaultAction(ConfigTree da) {
    String word = read(() -> da.asString().trim());
    if (word == null) {
      return null;
    }
    switch (word) {
      case "pass-through":
        return Action.PASS_THROUGH;
      case "drop":
        return Action.DROP;
      default:
        error(da, "unknown default action \"" + word + "\" (expected pass-through or drop)");
        return null;
    }
  }
}
