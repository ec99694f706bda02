package io.tcpopt.cli.operator;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The comment line {@code tcpopt policy get} writes above a version's YAML, and its removal from a
 * file given back to {@code apply}, {@code diff} or {@code validate}.
 *
 * <p>The edit loop the docs suggest ({@code policy get > p.yaml}, edit, {@code policy diff -f
 * p.yaml}) otherwise showed the header as a change (exit 3 on an untouched file), and an applied
 * file stored a header naming a version that was no longer the one it became (a stranger's
 * fresh-clone walk with {@code ./tcpopt demo}, 2026-12-03 10:16 UTC).
 */
final class PolicyHeader {
  private static final Pattern LINE = Pattern.compile("# policy .*, version \\d+(, applied \\S+)?\\R");

  private PolicyHeader() {}

  /** The line for {@code v}, with its line break. */
  static String of(Views.PolicyVersion v) {
    return "# policy " + v.name() + ", version " + v.version() + (v.appliedAt() == null ? "" : ", applied " + v.appliedAt()) + "\n";
  }

  /** {@code text} without the header {@link #of} wrote, when it starts with one; otherwise unchanged. */
  static String strip(String text) {
    Matcher header = LINE.matcher(text);
    return header.lookingAt() ? text.substring(header.end()) : text;
  }
}
