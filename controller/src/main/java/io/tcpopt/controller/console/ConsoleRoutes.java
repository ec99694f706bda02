package io.tcpopt.controller.console;

import com.google.rpc.BadRequest;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.tcpopt.common.http.HttpCall;
import io.tcpopt.common.http.HttpCallHandler;
import io.tcpopt.proto.v1.PolicyVersionInfo;
import io.tcpopt.proto.v1.PolicyViolation;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The console's pages and actions. Every page and {@code /api/throughput} needs an operator
 * ({@link ConsoleAccess}); unauthenticated requests get 401 (the sign-in page, or JSON). The only
 * changes are POSTs (apply, roll back, sign out), each checked for origin and form token before
 * anything runs, and carried out by the controller's policy service. Static assets are public and
 * contain nothing about the cluster.
 */
final class ConsoleRoutes implements HttpCallHandler {
  private static final Logger log = LoggerFactory.getLogger(ConsoleRoutes.class);

  private final ConsoleAccess access;
  private final ControllerData data;
  private final TrafficHistory history;
  private final Layout layout;
  private final Assets assets;
  private final boolean tls;
  private final Clock clock;

  ConsoleRoutes(ConsoleAccess access, ControllerData data, TrafficHistory history, Layout layout, Assets assets, boolean tls, Clock clock) {
    this.access = access;
    this.data = data;
    this.history = history;
    this.layout = layout;
    this.assets = assets;
    this.tls = tls;
    this.clock = clock;
  }

  @Override
  public void handle(HttpCall exchange) throws IOException {
    AtomicReference<ConsoleAccess.Operator> operator = new AtomicReference<>();
    try {
      route(exchange, operator);
    } catch (BadRequestException e) {
      page(exchange, 400, "Bad request", operator.get(), message(e.getMessage()));
    } catch (StatusRuntimeException e) {
      Status.Code code = e.getStatus().getCode();
      int status = code == Status.Code.NOT_FOUND ? 404 : code == Status.Code.INVALID_ARGUMENT ? 422
          : code == Status.Code.ABORTED || code == Status.Code.FAILED_PRECONDITION ? 409 : 503;
      page(exchange, status, "Controller error", operator.get(), message(describe(e)));
    } catch (RuntimeException e) {
      log.warn("console: {} {} failed", exchange.method(), exchange.path(), e);
      page(exchange, 500, "Console error", operator.get(), message("internal error: " + e));
    }
  }

  /** Serves the request; {@code operator} is set as soon as the caller is known (for error pages). */
  private void route(HttpCall exchange, AtomicReference<ConsoleAccess.Operator> operator) throws IOException {
    String path = exchange.path();
    String method = exchange.method();
    if (path.startsWith("/static/")) {
      assets.serve(exchange, path.substring("/static/".length()));
      return;
    }
    String badHost = access.hostRefusal(exchange);
    if (badHost != null) {
      Exchanges.send(exchange, 403, Exchanges.TEXT, badHost + "\n");
      return;
    }
    if (path.equals("/login")) {
      login(exchange, method);
      return;
    }
    Optional<ConsoleAccess.Operator> found = access.operator(exchange);
    if (found.isEmpty()) {
      if (path.startsWith("/api/")) {
        Exchanges.send(exchange, 401, Exchanges.JSON, "{\"error\":\"operator credentials required\"}\n");
      } else {
        exchange.setHeader("WWW-Authenticate", "Bearer realm=\"tcpopt console\"");
        String raw = exchange.rawQuery();
        page(exchange, 401, "Sign in", null, signInForm(null, method.equals("GET") ? path + (raw == null ? "" : "?" + raw) : "/"));
      }
      return;
    }
    ConsoleAccess.Operator caller = found.get();
    operator.set(caller);
    if (caller.newSession()) {
      exchange.addHeader("Set-Cookie", ConsoleAccess.cookieHeader(caller, tls));
    }
    if (method.equals("GET") || method.equals("HEAD")) {
      get(exchange, path, caller);
    } else if (method.equals("POST")) {
      post(exchange, path, caller);
    } else {
      exchange.setHeader("Allow", "GET, HEAD, POST");
      Exchanges.send(exchange, 405, Exchanges.TEXT, "method not allowed\n");
    }
  }

  private void get(HttpCall exchange, String path, ConsoleAccess.Operator operator) throws IOException {
    Map<String, String> query = Exchanges.query(exchange);
    switch (path) {
      case "/" -> page(exchange, 200, "Overview", operator, OverviewPage.render(data));
      case "/flows" -> page(exchange, 200, "Flows", operator, FlowsPage.render(data, query, history.flowRates()));
      case "/policy" -> page(exchange, 200, "Policy", operator, PolicyPage.show(data, query, operator, notice(query)));
      case "/nodes" -> page(exchange, 200, "Nodes", operator, NodesPage.render(data, clock.millis()));
      case "/api/throughput" -> Exchanges.send(exchange, 200, Exchanges.JSON, throughputJson());
      default -> page(exchange, 404, "Not found", operator, message("There is no page " + path + " in the console."));
    }
  }

  private void post(HttpCall exchange, String path, ConsoleAccess.Operator operator) throws IOException {
    Map<String, String> form = Exchanges.form(exchange);
    String refusal = ConsoleAccess.formRefusal(exchange, operator, form, tls);
    if (refusal != null) {
      page(exchange, 403, "Refused", operator, message(refusal));
      return;
    }
    switch (path) {
      case "/logout" -> {
        access.signOut(operator);
        exchange.addHeader("Set-Cookie", ConsoleAccess.expiredCookieHeader(tls));
        Exchanges.redirect(exchange, "/login");
      }
      case "/policy/apply" -> apply(exchange, operator, form);
      case "/policy/rollback" -> rollback(exchange, operator, form);
      default -> page(exchange, 404, "Not found", operator, message("There is no action " + path + " in the console."));
    }
  }

  private void apply(HttpCall exchange, ConsoleAccess.Operator operator, Map<String, String> form) throws IOException {
    String yaml = form.getOrDefault("yaml", "").replace("\r\n", "\n");
    if (yaml.isBlank()) {
      throw new BadRequestException("yaml: the policy document is required");
    }
    String comment = form.getOrDefault("comment", "").trim();
    if (!"yes".equals(form.get("confirm"))) {
      page(exchange, 200, "Review policy change", operator, PolicyPage.reviewApply(data, yaml, comment, operator));
      return;
    }
    try {
      PolicyVersionInfo v = data.apply(yaml, auditComment(operator, comment), PolicyPage.number(form, "expected-version"));
      Exchanges.redirect(exchange, "/policy?applied=" + v.getVersion());
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() != Status.Code.INVALID_ARGUMENT) {
        throw e;
      }
      Html h = new Html();
      PolicyPage.violations(h, "The policy service refused this document; nothing was applied.", violations(e));
      page(exchange, 422, "Review policy change", operator, h);
    }
  }

  private void rollback(HttpCall exchange, ConsoleAccess.Operator operator, Map<String, String> form) throws IOException {
    long version = PolicyPage.number(form, "version");
    if (version == 0) {
      throw new BadRequestException("version: the version to roll back to is required");
    }
    if (!"yes".equals(form.get("confirm"))) {
      page(exchange, 200, "Review rollback", operator, PolicyPage.reviewRollback(data, version, operator));
      return;
    }
    long expected = PolicyPage.number(form, "expected-version");
    if (expected != 0 && expected != data.versions().getActiveVersion()) {
      page(exchange, 409, "Refused", operator, message("The active policy changed since you reviewed this rollback; review it again."));
      return;
    }
    PolicyVersionInfo v = data.rollback(version);
    Exchanges.redirect(exchange, "/policy?rolled-back=" + version + "&applied=" + v.getVersion());
  }

  private void login(HttpCall exchange, String method) throws IOException {
    if (!method.equals("POST")) {
      page(exchange, 200, "Sign in", null, signInForm(null, "/"));
      return;
    }
    Map<String, String> form = Exchanges.form(exchange);
    if (!ConsoleAccess.sameOrigin(exchange, tls)) {
      page(exchange, 403, "Refused", null, message("refused: the sign-in did not come from this console's page"));
      return;
    }
    Optional<ConsoleAccess.Operator> operator = access.signIn(form.getOrDefault("token", ""));
    String next = localPath(form.getOrDefault("next", "/"));
    if (operator.isEmpty()) {
      page(exchange, 401, "Sign in", null, signInForm("That is not the operator token.", next));
      return;
    }
    exchange.addHeader("Set-Cookie", ConsoleAccess.cookieHeader(operator.get(), tls));
    Exchanges.redirect(exchange, next);
  }

  /** {@code path} when it is a path on this console, else "/": a sign-in never sends a browser elsewhere. */
  static String localPath(String path) {
    return path.startsWith("/") && !path.startsWith("//") && !path.startsWith("/\\") && path.chars().noneMatch(c -> c < 0x20)
        ? path : "/";
  }

  private Html signInForm(String error, String next) {
    Html h = new Html();
    if (error != null) {
      h.raw("<p class=\"error\" role=\"alert\">").text(error).raw("</p>");
    }
    if (access.tokenSignIn()) {
      h.raw("<p>Sign in with the controller's operator token (the one <code>tcpopt</code> takes as <code>--token</code>).</p>")
          .raw("<form method=\"post\" action=\"/login\" class=\"login\">").hidden("next", next)
          .raw("<label for=\"token\">Operator token</label>")
          .raw("<input id=\"token\" name=\"token\" type=\"password\" autocomplete=\"current-password\" required>")
          .raw("<button type=\"submit\" class=\"primary\">Sign in</button></form>");
    } else {
      h.raw("<p>This console accepts operator client certificates only: open it with your certificate in the browser.</p>");
    }
    return h;
  }

  private String throughputJson() {
    List<TrafficHistory.Sample> samples = history.samples();
    StringBuilder json = new StringBuilder(samples.size() * 40 + 100);
    json.append("{\"intervalSeconds\":1,\"samples\":[");
    for (int i = 0; i < samples.size(); i++) {
      TrafficHistory.Sample s = samples.get(i);
      json.append(i == 0 ? "" : ",").append('[').append(s.atMillis()).append(',').append(s.optimizedBps()).append(',')
          .append(s.passThroughBps()).append(']');
    }
    TrafficHistory.Sample last = samples.isEmpty() ? null : samples.get(samples.size() - 1);
    json.append("],\"activeOptimized\":").append(last == null ? 0 : last.activeOptimized())
        .append(",\"activePassThrough\":").append(last == null ? 0 : last.activePassThrough()).append("}\n");
    return json.toString();
  }

  private void page(HttpCall exchange, int status, String title, ConsoleAccess.Operator operator, Html content) throws IOException {
    String current = status == 200 ? exchange.path() : "";
    if (current.startsWith("/policy/")) {
      current = "/policy";
    }
    Exchanges.send(exchange, status, Exchanges.HTML, layout.page(title, operator == null ? null : current, operator, content));
  }

  private static String notice(Map<String, String> query) {
    if (query.containsKey("rolled-back")) {
      return "Rolled back to version " + query.get("rolled-back") + ", now active as version " + query.get("applied") + ".";
    }
    return query.containsKey("applied") ? "Applied: the policy is now active as version " + query.get("applied") + "." : null;
  }

  private static String auditComment(ConsoleAccess.Operator operator, String comment) {
    String by = "console (" + operator.how() + ")";
    return comment.isEmpty() ? by : by + ": " + comment;
  }

  private static Html message(String text) {
    return new Html().raw("<p class=\"error\" role=\"alert\">").text(text).raw("</p><p><a href=\"/\">Back to the overview</a></p>");
  }

  private static String describe(StatusRuntimeException e) {
    String d = e.getStatus().getDescription();
    return d == null ? e.getStatus().getCode().toString() : d;
  }

  static List<PolicyViolation> violations(StatusRuntimeException e) {
    List<PolicyViolation> out = new ArrayList<>();
    com.google.rpc.Status status = StatusProto.fromThrowable(e);
    if (status != null) {
      for (com.google.protobuf.Any detail : status.getDetailsList()) {
        if (detail.is(BadRequest.class)) {
          try {
            for (BadRequest.FieldViolation v : detail.unpack(BadRequest.class).getFieldViolationsList()) {
              out.add(PolicyViolation.newBuilder().setPath(v.getField()).setReason(v.getDescription()).build());
            }
          } catch (com.google.protobuf.InvalidProtocolBufferException ignored) {
            // Fall back to the description below.
          }
        }
      }
    }
    if (out.isEmpty()) {
      out.add(PolicyViolation.newBuilder().setReason(describe(e)).build());
    }
    return out;
  }
}
