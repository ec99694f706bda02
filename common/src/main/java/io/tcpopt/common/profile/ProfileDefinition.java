package io.tcpopt.common.profile;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A user profile of one {@link ProfileKind} as a policy writes it: its parent and the settings it
 * overrides (every other setting is inherited). {@code values} maps a YAML key to its parsed value.
 */
public record ProfileDefinition(String name, String parent, Map<String, Object> values) {
  public ProfileDefinition {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(parent, "parent");
    values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
  }
}
