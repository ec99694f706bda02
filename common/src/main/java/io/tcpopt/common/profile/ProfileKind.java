package io.tcpopt.common.profile;

import io.tcpopt.common.config.ConfigException;
import io.tcpopt.common.config.ConfigTree;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;

/**
 * One kind of named profile with F5-style parent inheritance, other than the TCP profiles: HTTP
 * server-connection reuse ({@link HttpReuseProfile}), client SSL ({@link ClientSslProfile}) and
 * server SSL ({@link ServerSslProfile}). A kind knows its policy section, its settings (each with
 * a validating reader and a canonical printer), its one built-in root profile, and how to build
 * the resolved profile from a complete set of values — which is where checks across settings go.
 *
 * <p>Resolution follows {@link TcpProfiles#resolve}: the built-in cannot be redefined, a profile
 * names a parent (default the built-in) and overrides some settings; cycles and unknown parents
 * are reported at the profile's {@code parent}.
 *
 * @param <P> the resolved profile type
 */
public final class ProfileKind<P> {
  /** Builds the resolved profile; reports a bad combination of settings as (key, reason). */
  interface Builder<P> {
    P build(String name, String parent, Values values, BiConsumer<String, String> errors);
  }

  /** The resolved values of every setting, with where each came from. */
  static final class Values {
    private final Map<String, Object> values;
    private final Map<String, Boolean> setHere;

    private Values(Map<String, Object> values, Map<String, Boolean> setHere) {
      this.values = values;
      this.setHere = setHere;
    }

    @SuppressWarnings("unchecked")
    <T> T get(String key) {
      if (!values.containsKey(key)) {
        throw new IllegalArgumentException("no setting " + key);
      }
      return (T) values.get(key);
    }

    /** Whether the profile being built sets {@code key} itself (rather than inheriting it). */
    boolean setHere(String key) {
      return setHere.getOrDefault(key, false);
    }
  }

  private final String section;
  private final String what;
  private final String root;
  private final Map<String, ProfileField> fields = new LinkedHashMap<>();
  private final Map<String, Object> rootValues;
  private final Builder<P> builder;
  private final P builtIn;

  /**
   * @param section the policy section holding user profiles, e.g. {@code http-reuse-profiles}
   * @param what the kind in messages, e.g. {@code http-reuse}
   * @param root the built-in root profile's name
   * @param fields the settings, in their canonical order
   * @param rootValues the built-in's value of every setting (null = none)
   */
  ProfileKind(String section, String what, String root, List<ProfileField> fields, Map<String, Object> rootValues, Builder<P> builder) {
    this.section = section;
    this.what = what;
    this.root = root;
    for (ProfileField f : fields) {
      this.fields.put(f.key(), f);
    }
    if (!this.fields.keySet().equals(rootValues.keySet())) {
      throw new IllegalArgumentException("root values of " + root + " must cover exactly the settings " + this.fields.keySet());
    }
    this.rootValues = Collections.unmodifiableMap(new LinkedHashMap<>(rootValues));
    this.builder = builder;
    this.builtIn = builder.build(root, null, new Values(this.rootValues, Map.of()), (k, r) -> {
      throw new IllegalStateException("built-in " + root + "." + k + ": " + r);
    });
  }

  /** The policy section of user profiles of this kind, e.g. {@code http-reuse-profiles}. */
  public String section() {
    return section;
  }

  /** The kind's name as an optimize action spells its reference: {@code http-reuse}, {@code client-ssl}, ... */
  public String what() {
    return what;
  }

  /** The built-in root profile's name (F5's: {@code oneconnect}, {@code clientssl}, {@code serverssl}). */
  public String rootName() {
    return root;
  }

  public P builtIn() {
    return builtIn;
  }

  public boolean isBuiltIn(String name) {
    return root.equals(name);
  }

  /**
   * Reads one user profile. Every bad setting is reported to {@code errors} as (path, reason) and
   * left inherited in the returned definition.
   */
  public ProfileDefinition parse(String name, ConfigTree tree, BiConsumer<String, String> errors) {
    String[] keys = new String[fields.size() + 1];
    keys[0] = "parent";
    int i = 1;
    for (String k : fields.keySet()) {
      keys[i++] = k;
    }
    try {
      tree.requireOnly(keys);
    } catch (ConfigException e) {
      errors.accept(e.path(), e.reason());
    }
    String parent = root;
    Map<String, Object> values = new LinkedHashMap<>();
    try {
      if (tree.has("parent")) {
        parent = tree.string("parent").trim();
      }
    } catch (ConfigException e) {
      errors.accept(e.path(), e.reason());
    }
    for (ProfileField f : fields.values()) {
      if (!tree.has(f.key())) {
        continue;
      }
      try {
        values.put(f.key(), f.reader().apply(tree.get(f.key())));
      } catch (ConfigException e) {
        errors.accept(e.path(), e.reason());
      }
    }
    return new ProfileDefinition(name, parent, values);
  }

  /**
   * Resolves user definitions against each other and the built-in; errors go to {@code errors}
   * with paths under {@code basePath} (the section's path).
   *
   * @return the built-in and every user profile that resolved, by name
   */
  public Map<String, P> resolve(Map<String, ProfileDefinition> definitions, String basePath, BiConsumer<String, String> errors) {
    Map<String, P> out = new LinkedHashMap<>();
    out.put(root, builtIn);
    String base = basePath.isEmpty() ? "" : basePath + ".";
    for (ProfileDefinition d : definitions.values()) {
      if (isBuiltIn(d.name())) {
        errors.accept(base + d.name(), "cannot redefine built-in profile \"" + d.name() + "\"");
        continue;
      }
      Inheritance.Chain<ProfileDefinition> walk =
          Inheritance.walk(d, definitions, ProfileDefinition::name, ProfileDefinition::parent, this::isBuiltIn);
      if (walk.failure() != null) {
        errors.accept(base + d.name() + ".parent", walk.failure());
      }
      if (!walk.resolved()) {
        continue;
      }
      Map<String, Object> values = new LinkedHashMap<>(rootValues);
      for (int i = walk.chain().size() - 1; i >= 0; i--) {
        values.putAll(walk.chain().get(i).values());
      }
      Map<String, Boolean> setHere = new LinkedHashMap<>();
      d.values().keySet().forEach(k -> setHere.put(k, true));
      boolean[] failed = {false};
      P p = builder.build(d.name(), d.parent(), new Values(values, setHere), (key, reason) -> {
        failed[0] = true;
        errors.accept(base + d.name() + "." + key, reason);
      });
      if (!failed[0]) {
        out.put(d.name(), Objects.requireNonNull(p));
      }
    }
    return Collections.unmodifiableMap(out);
  }

  /** The canonical YAML mapping of a definition of this kind (its parent and the settings it sets). */
  public Map<String, Object> toYamlMap(ProfileDefinition d) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("parent", d.parent());
    for (ProfileField f : fields.values()) {
      if (d.values().containsKey(f.key())) {
        out.put(f.key(), f.printer().apply(d.values().get(f.key())));
      }
    }
    return out;
  }
}
