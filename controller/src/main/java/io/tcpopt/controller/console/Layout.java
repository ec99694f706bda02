package io.tcpopt.controller.console;

import java.util.List;

/**
 * The frame of every console page: document head (the bundled stylesheet and script, nothing from
 * elsewhere), a skip link, the page navigation with the current page marked, who is signed in and
 * how, then the page's own content under its {@code h1}.
 */
final class Layout {
  record Link(String path, String label) {}

  static final List<Link> PAGES = List.of(
      new Link("/", "Overview"), new Link("/flows", "Flows"), new Link("/policy", "Policy"), new Link("/nodes", "Nodes"));

  private final String controllerName;
  private final String site;

  Layout(String controllerName, String site) {
    this.controllerName = controllerName;
    this.site = site;
  }

  /**
   * @param current the path of the page in the navigation, or null (sign-in page: no navigation)
   * @param operator who is signed in, or null
   */
  String page(String title, String current, ConsoleAccess.Operator operator, Html content) {
    Html h = new Html();
    h.raw("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
        .raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
        .raw("<title>").text(title + " · tcpopt console · " + controllerName).raw("</title>")
        .raw("<link rel=\"stylesheet\" href=\"/static/console.css\">")
        .raw("<script src=\"/static/console.js\" defer></script></head><body>")
        .raw("<a class=\"skip\" href=\"#main\">Skip to content</a>")
        .raw("<header class=\"top\"><p class=\"brand\">tcpopt console</p>")
        .raw("<p class=\"where\">controller <strong>").text(controllerName).raw("</strong>, site <strong>").text(site).raw("</strong></p>");
    if (current != null) {
      h.raw("<nav aria-label=\"Console pages\"><ul>");
      for (Link l : PAGES) {
        h.raw("<li><a href=\"").raw(l.path()).raw("\"").raw(l.path().equals(current) ? " aria-current=\"page\"" : "").raw(">")
            .text(l.label()).raw("</a></li>");
      }
      h.raw("</ul></nav>");
    }
    if (operator != null) {
      h.raw("<div class=\"who\"><p>").text(describe(operator)).raw("</p>");
      if (operator.session() != null && operator.how().equals("token")) {
        h.raw("<form method=\"post\" action=\"/logout\">").hidden(ConsoleAccess.FORM_TOKEN_FIELD, operator.session().formToken)
            .raw("<button type=\"submit\">Sign out</button></form>");
      }
      h.raw("</div>");
    }
    h.raw("</header><main id=\"main\"><h1>").text(title).raw("</h1>").raw(content.toString())
        .raw("</main><footer><p>tcpopt: pages are rendered by the controller; nothing here is loaded from elsewhere.</p></footer>")
        .raw("</body></html>\n");
    return h.toString();
  }

  private static String describe(ConsoleAccess.Operator operator) {
    return switch (operator.how()) {
      case "client certificate" -> "Operator (client certificate)";
      case "open" -> "Open console: no operator credentials are configured";
      default -> "Operator (signed in with the token)";
    };
  }
}
