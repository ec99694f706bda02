package io.tcpopt.cli.operator;

import java.util.ArrayList;
import java.util.List;

/**
 * A unified diff of two texts by lines (longest common subsequence, three lines of context), as
 * {@code policy diff} prints it. Policies are small, so the quadratic table is fine.
 */
final class LineDiff {
  private static final int CONTEXT = 3;

  private LineDiff() {}

  /** The diff lines, empty when the texts are equal line for line. */
  static List<String> unified(String a, String b, String nameA, String nameB) {
    String[] x = a.split("\n", -1);
    String[] y = b.split("\n", -1);
    int[][] lcs = new int[x.length + 1][y.length + 1];
    for (int i = x.length - 1; i >= 0; i--) {
      for (int j = y.length - 1; j >= 0; j--) {
        lcs[i][j] = x[i].equals(y[j]) ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
      }
    }
    // Edit script: ' ' keep, '-' remove from a, '+' add from b; with positions in a and b.
    StringBuilder ops = new StringBuilder();
    List<String> texts = new ArrayList<>();
    List<int[]> pos = new ArrayList<>();
    int i = 0;
    int j = 0;
    while (i < x.length || j < y.length) {
      if (i < x.length && j < y.length && x[i].equals(y[j])) {
        ops.append(' ');
        texts.add(x[i]);
        pos.add(new int[] {i++, j++});
      } else if (i < x.length && (j == y.length || lcs[i + 1][j] >= lcs[i][j + 1])) {
        ops.append('-');
        texts.add(x[i]);
        pos.add(new int[] {i++, j});
      } else {
        ops.append('+');
        texts.add(y[j]);
        pos.add(new int[] {i, j++});
      }
    }
    List<String> out = new ArrayList<>();
    int n = ops.length();
    int k = 0;
    while (k < n) {
      if (ops.charAt(k) == ' ') {
        k++;
        continue;
      }
      int start = Math.max(0, k - CONTEXT);
      int end = k;
      // Extend the hunk while changes are within 2*CONTEXT lines of each other.
      int lastChange = k;
      while (end < n) {
        if (ops.charAt(end) != ' ') {
          lastChange = end;
        } else if (end - lastChange > 2 * CONTEXT) {
          break;
        }
        end++;
      }
      end = Math.min(n, lastChange + CONTEXT + 1);
      if (out.isEmpty()) {
        out.add("--- " + nameA);
        out.add("+++ " + nameB);
      }
      int aStart = pos.get(start)[0];
      int bStart = pos.get(start)[1];
      int aCount = 0;
      int bCount = 0;
      for (int h = start; h < end; h++) {
        char op = ops.charAt(h);
        aCount += op != '+' ? 1 : 0;
        bCount += op != '-' ? 1 : 0;
      }
      out.add(String.format("@@ -%d,%d +%d,%d @@", aStart + 1, aCount, bStart + 1, bCount));
      for (int h = start; h < end; h++) {
        out.add(ops.charAt(h) + texts.get(h));
      }
      k = end;
    }
    return out;
  }
}
