package io.tcpopt.common.profile;

import io.tcpopt.common.config.ConfigException;
import io.tcpopt.common.config.ConfigTree;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.BiPredicate;

/**
 * A policy's application profiles besides its TCP profiles: the {@code http-reuse-profiles},
 * {@code client-ssl-profiles} and {@code server-ssl-profiles} sections, as written and resolved.
 * Immutable.
 *
 * <pre>
 * http-reuse-profiles:
 *   web: { source-mask: 255.255.255.0 }
 * client-ssl-profiles:
 *   www: { certificate: /etc/tcpopt/tls/www.crt, private-key: /etc/tcpopt/tls/www.key }
 * server-ssl-profiles:
 *   internal: { ca-file: /etc/tcpopt/tls/internal-ca.crt, server-name: www.example.com }
 * </pre>
 */
public final class ServiceProfiles {
  /** The kinds, in the order their sections are printed. */
  public static final List<ProfileKind<?>> KINDS = List.of(HttpReuseProfile.KIND, ClientSslProfile.KIND, ServerSslProfile.KIND);

  /** No user profiles: only the built-ins. */
  public static final ServiceProfiles NONE = new ServiceProfiles(Map.of(), Map.of());

  private final Map<ProfileKind<?>, Map<String, ProfileDefinition>> definitions;
  private final Map<ProfileKind<?>, Map<String, ?>> resolved;

  private ServiceProfiles(Map<ProfileKind<?>, Map<String, ProfileDefinition>> definitions, Map<ProfileKind<?>, Map<String, ?>> resolved) {
    Map<ProfileKind<?>, Map<String, ProfileDefinition>> d = new LinkedHashMap<>();
    Map<ProfileKind<?>, Map<String, ?>> r = new LinkedHashMap<>();
    for (ProfileKind<?> kind : KINDS) {
      d.put(kind, Collections.unmodifiableMap(new LinkedHashMap<>(definitions.getOrDefault(kind, Map.of()))));
      r.put(kind, resolved.containsKey(kind) ? resolved.get(kind) : Map.of(kind.rootName(), kind.builtIn()));
    }
    this.definitions = Collections.unmodifiableMap(d);
    this.resolved = Collections.unmodifiableMap(r);
  }

  /**
   * Reads the three sections of a policy's root mapping. Errors go to {@code errors} as (path,
   * reason); {@code nameOk} checks a profile's name (reporting a bad one itself) and returns
   * whether to keep it.
   */
  public static ServiceProfiles parse(ConfigTree root, BiConsumer<String, String> errors, BiPredicate<ConfigTree, String> nameOk) {
    Map<ProfileKind<?>, Map<String, ProfileDefinition>> definitions = new LinkedHashMap<>();
    Map<ProfileKind<?>, Map<String, ?>> resolved = new LinkedHashMap<>();
    for (ProfileKind<?> kind : KINDS) {
      ConfigTree section = root.section(kind.section());
      Map<String, ProfileDefinition> defs = new LinkedHashMap<>();
      try {
        section.entries().forEach((name, tree) -> {
          if (nameOk.test(tree, name)) {
            defs.put(name, kind.parse(name, tree, errors));
          }
        });
      } catch (ConfigException e) {
        errors.accept(e.path(), e.reason());
      }
      definitions.put(kind, defs);
      resolved.put(kind, kind.resolve(defs, section.path(), errors));
    }
    return new ServiceProfiles(definitions, resolved);
  }

  /** The user definitions of one kind as written, by name. */
  public Map<String, ProfileDefinition> definitions(ProfileKind<?> kind) {
    return definitions.get(kind);
  }

  /** Whether {@code name} is the built-in or a user profile of {@code kind} (resolved or not). */
  public boolean defines(ProfileKind<?> kind, String name) {
    return kind.isBuiltIn(name) || definitions.get(kind).containsKey(name);
  }

  /** The resolved profile, or null when there is none of that name (or it did not resolve). */
  @SuppressWarnings("unchecked")
  public <P> P resolved(ProfileKind<P> kind, String name) {
    return name == null ? null : (P) resolved.get(kind).get(name);
  }

  /** Adds the sections that hold user profiles to a policy's canonical YAML root mapping. */
  public void addYaml(Map<String, Object> root) {
    for (ProfileKind<?> kind : KINDS) {
      Map<String, ProfileDefinition> defs = definitions.get(kind);
      if (!defs.isEmpty()) {
        Map<String, Object> section = new LinkedHashMap<>();
        defs.forEach((n, d) -> section.put(n, kind.toYamlMap(d)));
        root.put(kind.section(), section);
      }
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ServiceProfiles s && definitions.equals(s.definitions);
  }

  @Override
  public int hashCode() {
    return Objects.hash(definitions);
  }
}
