package io.tcpopt.cli.console;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Just enough JSON for the DevTools protocol: objects, arrays, strings, numbers, booleans, null. */
final class MiniJson {
  private final String s;
  private int i;

  private MiniJson(String s) {
    this.s = s;
  }

  static Object parse(String text) {
    MiniJson p = new MiniJson(text);
    Object v = p.value();
    p.space();
    if (p.i != text.length()) {
      throw new IllegalArgumentException("trailing characters at " + p.i);
    }
    return v;
  }

  /** {@code value} as JSON text. */
  static String write(Object value) {
    StringBuilder b = new StringBuilder();
    write(b, value);
    return b.toString();
  }

  private static void write(StringBuilder b, Object v) {
    if (v == null) {
      b.append("null");
    } else if (v instanceof String str) {
      b.append('"');
      for (char c : str.toCharArray()) {
        switch (c) {
          case '"' -> b.append("\\\"");
          case '\\' -> b.append("\\\\");
          case '\n' -> b.append("\\n");
          case '\r' -> b.append("\\r");
          case '\t' -> b.append("\\t");
          default -> {
            if (c < 0x20) {
              b.append(String.format("\\u%04x", (int) c));
            } else {
              b.append(c);
            }
          }
        }
      }
      b.append('"');
    } else if (v instanceof Map<?, ?> m) {
      b.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : m.entrySet()) {
        b.append(first ? "" : ",");
        first = false;
        write(b, String.valueOf(e.getKey()));
        b.append(':');
        write(b, e.getValue());
      }
      b.append('}');
    } else if (v instanceof List<?> l) {
      b.append('[');
      for (int k = 0; k < l.size(); k++) {
        b.append(k == 0 ? "" : ",");
        write(b, l.get(k));
      }
      b.append(']');
    } else {
      b.append(v);
    }
  }

  private void space() {
    while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
      i++;
    }
  }

  private Object value() {
    space();
    char c = s.charAt(i);
    switch (c) {
      case '{':
        return object();
      case '[':
        return array();
      case '"':
        return string();
      case 't':
        i += 4;
        return Boolean.TRUE;
      case 'f':
        i += 5;
        return Boolean.FALSE;
      case 'n':
        i += 4;
        return null;
      default:
        int start = i;
        while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
          i++;
        }
        return Double.parseDouble(s.substring(start, i));
    }
  }

  private Map<String, Object> object() {
    Map<String, Object> m = new LinkedHashMap<>();
    i++;
    space();
    if (s.charAt(i) == '}') {
      i++;
      return m;
    }
    while (true) {
      space();
      String key = string();
      space();
      i++; // ':'
      m.put(key, value());
      space();
      if (s.charAt(i++) == '}') {
        return m;
      }
    }
  }

  private List<Object> array() {
    List<Object> l = new ArrayList<>();
    i++;
    space();
    if (s.charAt(i) == ']') {
      i++;
      return l;
    }
    while (true) {
      l.add(value());
      space();
      if (s.charAt(i++) == ']') {
        return l;
      }
    }
  }

  private String string() {
    StringBuilder b = new StringBuilder();
    i++;
    while (true) {
      char c = s.charAt(i++);
      if (c == '"') {
        return b.toString();
      }
      if (c != '\\') {
        b.append(c);
        continue;
      }
      char e = s.charAt(i++);
      switch (e) {
        case 'n' -> b.append('\n');
        case 't' -> b.append('\t');
        case 'r' -> b.append('\r');
        case 'b' -> b.append('\b');
        case 'f' -> b.append('\f');
        case 'u' -> {
          b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
          i += 4;
        }
        default -> b.append(e);
      }
    }
  }
}
