package io.tcpopt.cli.output;

import java.util.Iterator;
import java.util.Map;

/**
 * Writes plain Java values as JSON: {@link Map} (keys in iteration order), {@link Iterable},
 * {@link CharSequence}, {@link Number}, {@link Boolean}, {@code null}; anything else as its string.
 * Indented with two spaces, so that the output is both diff-able and {@code jq}-able.
 */
public final class Json {
  private Json() {}

  public static String write(Object value) {
    StringBuilder out = new StringBuilder();
    write(out, value, 0);
    return out.toString();
  }

  private static void write(StringBuilder out, Object value, int depth) {
    if (value == null) {
      out.append("null");
    } else if (value instanceof Boolean) {
      out.append(value);
    } else if (value instanceof Double || value instanceof Float) {
      double d = ((Number) value).doubleValue();
      out.append(Double.isFinite(d) ? stripZero(d) : "null");
    } else if (value instanceof Number) {
      out.append(value);
    } else if (value instanceof Map) {
      Map<?, ?> map = (Map<?, ?>) value;
      if (map.isEmpty()) {
        out.append("{}");
        return;
      }
      out.append("{\n");
      Iterator<? extends Map.Entry<?, ?>> it = map.entrySet().iterator();
      while (it.hasNext()) {
        Map.Entry<?, ?> e = it.next();
        indent(out, depth + 1);
        string(out, String.valueOf(e.getKey()));
        out.append(": ");
        write(out, e.getValue(), depth + 1);
        out.append(it.hasNext() ? ",\n" : "\n");
      }
      indent(out, depth);
      out.append('}');
    } else if (value instanceof Iterable) {
      Iterator<?> it = ((Iterable<?>) value).iterator();
      if (!it.hasNext()) {
        out.append("[]");
        return;
      }
      out.append("[\n");
      while (it.hasNext()) {
        indent(out, depth + 1);
        write(out, it.next(), depth + 1);
        out.append(it.hasNext() ? ",\n" : "\n");
      }
      indent(out, depth);
      out.append(']');
    } else {
      string(out, value.toString());
    }
  }

  private static String stripZero(double d) {
    if (d == Math.rint(d) && Math.abs(d) < 1e15) {
      return Long.toString((long) d);
    }
    return Double.toString(d);
  }

  private static void indent(StringBuilder out, int depth) {
    out.append("  ".repeat(depth));
  }

  private static void string(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"': out.append("\\\""); break;
        case '\\': out.append("\\\\"); break;
        case '\n': out.append("\\n"); break;
        case '\r': out.append("\\r"); break;
        case '\t': out.append("\\t"); break;
        default:
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
      }
    }
    out.append('"');
  }
}
