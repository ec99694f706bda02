package io.tcpopt.cli.output;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * A table with aligned columns: a header row in capitals, then one row per item. Numeric-looking
 * columns are right-aligned so that bytes and rates line up.
 */
public final class Table {
  private final List<String> headers;
  private final List<List<String>> rows = new ArrayList<>();

  public Table(String... headers) {
    this.headers = List.of(headers);
  }

  /** Adds a row; {@code null} cells print as "-". */
  public Table row(Object... cells) {
    if (cells.length != headers.size()) {
      throw new IllegalArgumentException("row has " + cells.length + " cells, table has " + headers.size() + " columns");
    }
    List<String> row = new ArrayList<>(cells.length);
    for (Object cell : cells) {
      row.add(cell == null || String.valueOf(cell).isEmpty() ? "-" : String.valueOf(cell));
    }
    rows.add(row);
    return this;
  }

  public boolean isEmpty() {
    return rows.isEmpty();
  }

  public void print(PrintStream out) {
    lines().forEach(out::println);
  }

  /** The header line and one line per row, aligned, without line ends. */
  public List<String> lines() {
    List<String> out = new ArrayList<>(rows.size() + 1);
    int n = headers.size();
    int[] width = new int[n];
    boolean[] right = new boolean[n];
    for (int c = 0; c < n; c++) {
      width[c] = headers.get(c).length();
      boolean numeric = true;
      boolean anyValue = false;
      for (List<String> row : rows) {
        String cell = row.get(c);
        width[c] = Math.max(width[c], cell.length());
        numeric &= cell.equals("-") || looksNumeric(cell);
        anyValue |= !cell.equals("-");
      }
      right[c] = numeric && anyValue;
    }
    StringBuilder line = new StringBuilder();
    for (int c = 0; c < n; c++) {
      cell(line, headers.get(c).toUpperCase(), width[c], right[c], c == n - 1);
    }
    out.add(line.toString().stripTrailing());
    for (List<String> row : rows) {
      line.setLength(0);
      for (int c = 0; c < n; c++) {
        cell(line, row.get(c), width[c], right[c], c == n - 1);
      }
      out.add(line.toString().stripTrailing());
    }
    return out;
  }

  private static void cell(StringBuilder line, String text, int width, boolean right, boolean last) {
    String pad = " ".repeat(width - text.length());
    line.append(right ? pad + text : text + pad);
    if (!last) {
      line.append("  ");
    }
  }

  private static boolean looksNumeric(String s) {
    return s.matches("[-+]?[0-9][0-9.,]*\\s?([kKMGT]i?B|[kMG]?bit/s|[kMG]?B/s|ms|s|%|B)?");
  }
}
