package io.tcpopt.controller.api;

import java.util.ArrayList;
import java.util.List;

/**
 * A minimal line diff (longest common subsequence) for comparing policy versions: lines prefixed
 * with {@code " "}, {@code "-"} or {@code "+"} under a {@code ---}/{@code +++} header. Policies are
 * small; past 2,000 lines a side it falls back to "all removed, all added".
 */
final class LineDiff {
  private static final int MAX_LINES = 2_000;

  private LineDiff() {}

  static String unified(String fromName, String from, String toName, String to) {
    String[] a = from.split("\n", -1);
    String[] b = to.split("\n", -1);
    List<String> out = new ArrayList<>();
    out.add("--- " + fromName);
    out.add("+++ " + toName);
    if (a.length > MAX_LINES || b.length > MAX_LINES) {
      for (String s : a) {
        out.add("-" + s);
      }
      for (String s : b) {
        out.add("+" + s);
      }
      return String.join("\n", out) + "\n";
    }
    int[][] lcs = new int[a.length + 1][b.length + 1];
    for (int i = a.length - 1; i >= 0; i--) {
      for (int j = b.length - 1; j >= 0; j--) {
        lcs[i][j] = a[i].equals(b[j]) ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
      }
    }
    int i = 0;
    int j = 0;
    while (i < a.length || j < b.length) {
      if (i < a.length && j < b.length && a[i].equals(b[j])) {
        out.add(" " + a[i++]);
        j++;
      } else if (j < b.length && (i == a.length || lcs[i][j + 1] >= lcs[i + 1][j])) {
        out.add("+" + b[j++]);
      } else {
        out.add("-" + a[i++]);
      }
    }
    return String.join("\n", out) + "\n";
  }
}
