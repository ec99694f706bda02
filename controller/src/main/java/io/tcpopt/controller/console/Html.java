package io.tcpopt.controller.console;

/**
 * A small HTML writer: {@link #text} escapes, {@link #raw} does not, and the table helpers write
 * accessible tables (caption, column headers with scope). Every value that came from outside the
 * console (node names, addresses, policy text) goes through {@link #text} or {@link #attr}.
 */
final class Html {
  private final StringBuilder out = new StringBuilder(8192);

  Html raw(String markup) {
    out.append(markup);
    return this;
  }

  Html text(Object value) {
    out.append(escape(String.valueOf(value)));
    return this;
  }

  /** {@code <tag>text</tag>} with {@code attributes} as written (constant markup only). */
  Html element(String tag, String attributes, Object text) {
    out.append('<').append(tag).append(attributes.isEmpty() ? "" : " " + attributes).append('>');
    text(text);
    out.append("</").append(tag).append('>');
    return this;
  }

  Html tableStart(String caption, String... headers) {
    raw("<div class=\"table-wrap\"><table><caption>").text(caption).raw("</caption><thead><tr>");
    for (String h : headers) {
      raw("<th scope=\"col\">").text(h).raw("</th>");
    }
    return raw("</tr></thead><tbody>");
  }

  /** One row of escaped cells; the first is the row header. */
  Html row(Object... cells) {
    raw("<tr>");
    for (int i = 0; i < cells.length; i++) {
      String tag = i == 0 ? "th scope=\"row\"" : "td";
      raw("<" + tag + ">").text(cells[i] == null ? "-" : cells[i]).raw(i == 0 ? "</th>" : "</td>");
    }
    return raw("</tr>");
  }

  Html tableEnd(int columns, String whenEmpty, boolean empty) {
    if (empty) {
      raw("<tr><td colspan=\"" + columns + "\" class=\"empty\">").text(whenEmpty).raw("</td></tr>");
    }
    return raw("</tbody></table></div>");
  }

  /** A hidden form field. */
  Html hidden(String name, Object value) {
    return raw("<input type=\"hidden\" name=\"").raw(attr(name)).raw("\" value=\"").raw(attr(String.valueOf(value))).raw("\">");
  }

  static String escape(String s) {
    StringBuilder b = new StringBuilder(s.length() + 16);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        case '&' -> b.append("&amp;");
        case '"' -> b.append("&quot;");
        case '\'' -> b.append("&#39;");
        default -> b.append(c);
      }
    }
    return b.toString();
  }

  static String attr(String s) {
    return escape(s);
  }

  @Override
  public String toString() {
    return out.toString();
  }
}
