package io.tcpopt.common.profile;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Walks a user profile's parent chain up to a built-in, for every kind of profile (TCP, HTTP reuse,
 * client and server SSL). A broken chain is reported once, where it breaks: a cycle at each of its
 * members, an unknown parent at the profile naming it; profiles that merely inherit from a broken
 * one are skipped without a second error.
 */
final class Inheritance {
  private Inheritance() {}

  /**
   * The outcome of one walk.
   *
   * @param chain the definitions from the start profile up to the last user ancestor, child first
   * @param builtIn the built-in the chain ends at; null when the chain is broken
   * @param failure the error to report at the start profile's {@code parent}, or null
   */
  record Chain<D>(List<D> chain, String builtIn, String failure) {
    boolean resolved() {
      return builtIn != null;
    }
  }

  static <D> Chain<D> walk(D start, Map<String, D> definitions, Function<D, String> name, Function<D, String> parent,
      Predicate<String> isBuiltIn) {
    List<D> chain = new ArrayList<>();
    Set<String> seen = new LinkedHashSet<>();
    D cur = start;
    while (true) {
      chain.add(cur);
      seen.add(name.apply(cur));
      String p = parent.apply(cur);
      if (isBuiltIn.test(p)) {
        return new Chain<>(chain, p, null);
      }
      if (seen.contains(p)) {
        // Only a member of the cycle reports it; a profile leading into a cycle is just skipped.
        String failure = p.equals(name.apply(start)) ? "inheritance cycle " + String.join(" -> ", seen) + " -> " + p : null;
        return new Chain<>(chain, null, failure);
      }
      if (!definitions.containsKey(p)) {
        return new Chain<>(chain, null, cur == start ? "unknown parent profile \"" + p + "\"" : null);
      }
      cur = definitions.get(p);
    }
  }
}
