package io.tcpopt.controller.console;

import io.tcpopt.proto.v1.ListPolicyVersionsResponse;
import io.tcpopt.proto.v1.Policy;
import io.tcpopt.proto.v1.PolicyVersionInfo;
import io.tcpopt.proto.v1.PolicyViolation;
import io.tcpopt.proto.v1.ValidatePolicyResponse;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Map;

/**
 * The policy page: the active version rendered readably, any stored version, the diff between two
 * versions, the version history, and for operators the two changes the API offers, each confirmed on
 * a second page that shows what would change: apply a new document (validated by the policy
 * service, with every violation listed by its path) and roll back to a stored version. The change
 * itself carries the active version it was reviewed against, so a concurrent change makes it fail
 * rather than overwrite.
 */
final class PolicyPage {
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'").withZone(ZoneOffset.UTC);

  private PolicyPage() {}

  static Html show(ControllerData data, Map<String, String> query, ConsoleAccess.Operator operator, String notice) {
    ListPolicyVersionsResponse versions = data.versions();
    long active = versions.getActiveVersion();
    Html h = new Html();
    if (notice != null) {
      h.raw("<p class=\"notice\" role=\"status\">").text(notice).raw("</p>");
    }
    String activeYaml = "";
    if (active == 0) {
      h.raw("<p>No policy has been applied yet: every flow a peer serves is optimized.</p>");
    } else {
      Policy p = data.policy(0);
      activeYaml = p.getYaml();
      h.raw("<section aria-labelledby=\"active\"><h2 id=\"active\">").text("Active: " + p.getInfo().getName() + ", version " + active)
          .raw("</h2>");
      meta(h, p.getInfo());
      PolicyView.document(h, "active", p.getYaml());
      h.raw("</section>");
    }
    long shown = number(query, "version");
    if (shown > 0 && shown != active) {
      Policy p = data.policy(shown);
      h.raw("<section aria-labelledby=\"shown\"><h2 id=\"shown\">").text("Version " + shown + ": " + p.getInfo().getName()).raw("</h2>");
      meta(h, p.getInfo());
      PolicyView.document(h, "shown", p.getYaml());
      h.raw("</section>");
    }

    h.raw("<section aria-labelledby=\"history\"><h2 id=\"history\">History</h2>");
    h.tableStart("Stored policy versions, newest first", "Version", "Name", "Applied", "By", "Comment", "SHA-256", "Actions");
    for (PolicyVersionInfo v : versions.getVersionsList()) {
      h.raw("<tr><th scope=\"row\">").text("v" + v.getVersion() + (v.getActive() ? " (active)" : "")).raw("</th><td>").text(v.getName())
          .raw("</td><td>").text(time(v.getAppliedAtUnixMillis())).raw("</td><td>").text(v.getAppliedBy()).raw("</td><td>")
          .text(v.getComment()).raw("</td><td><code>").text(v.getSha256().substring(0, Math.min(12, v.getSha256().length())))
          .raw("</code></td><td class=\"actions\">")
          .raw("<a href=\"/policy?version=" + v.getVersion() + "#shown\">view</a>");
      if (v.getVersion() > 1) {
        h.raw(" <a href=\"/policy?from=" + (v.getVersion() - 1) + "&amp;to=" + v.getVersion() + "#diff\">diff with v" + (v.getVersion() - 1) + "</a>");
      }
      if (!v.getActive()) {
        h.raw(" <form method=\"post\" action=\"/policy/rollback\" class=\"inline\">").hidden(ConsoleAccess.FORM_TOKEN_FIELD, formToken(operator))
            .hidden("version", v.getVersion())
            .raw("<button type=\"submit\">Roll back to v" + v.getVersion() + "…</button></form>");
      }
      h.raw("</td></tr>");
    }
    h.tableEnd(7, "no versions stored", versions.getVersionsCount() == 0).raw("</section>");

    h.raw("<section aria-labelledby=\"diff\"><h2 id=\"diff\">Compare versions</h2>");
    if (versions.getVersionsCount() > 0) {
      long from = number(query, "from");
      long to = number(query, "to");
      h.raw("<form method=\"get\" action=\"/policy#diff\" class=\"filters\">");
      select(h, "from", "From version", versions, from > 0 ? from : Math.max(1, active - 1));
      select(h, "to", "To version", versions, to > 0 ? to : active);
      h.raw("<div class=\"field\"><button type=\"submit\">Show differences</button></div></form>");
      if (from > 0 && to > 0) {
        PolicyView.diff(h, "Version " + from + " → version " + to, data.diff(from, to));
      }
    } else {
      h.raw("<p>Nothing to compare yet.</p>");
    }
    h.raw("</section>");

    h.raw("<section aria-labelledby=\"apply\"><h2 id=\"apply\">Apply a policy</h2>")
        .raw("<p>Edit the document and review the changes; nothing is applied before you confirm on the next page.</p>");
    applyForm(h, operator, activeYaml, "");
    h.raw("</section>");
    return h;
  }

  /** The page before an apply: validation by the policy service, then the diff and the confirm button. */
  static Html reviewApply(ControllerData data, String yaml, String comment, ConsoleAccess.Operator operator) {
    Html h = new Html();
    ValidatePolicyResponse v = data.validate(yaml);
    if (!v.getValid()) {
      violations(h, "The policy service refused this document; nothing was applied.", v.getViolationsList());
      applyForm(h, operator, yaml, comment);
      return h;
    }
    long active = data.versions().getActiveVersion();
    h.raw("<p>").text("Policy " + v.getName() + " is valid. Review the changes against the active version"
        + (active == 0 ? " (none)" : " (v" + active + ")") + ", then confirm.").raw("</p>");
    if (active > 0) {
      PolicyView.diff(h, "Active version " + active + " → this document", data.diffCandidate(yaml));
    }
    h.raw("<form method=\"post\" action=\"/policy/apply\">").hidden(ConsoleAccess.FORM_TOKEN_FIELD, formToken(operator))
        .hidden("yaml", yaml).hidden("comment", comment).hidden("expected-version", active).hidden("confirm", "yes")
        .raw("<button type=\"submit\" class=\"primary\">Confirm: apply as the new active version</button> ")
        .raw("<a href=\"/policy\">Cancel</a></form>");
    return h;
  }

  /** The page before a rollback: what re-activating the version would change. */
  static Html reviewRollback(ControllerData data, long version, ConsoleAccess.Operator operator) {
    long active = data.versions().getActiveVersion();
    Policy p = data.policy(version);
    Html h = new Html();
    h.raw("<p>").text("Roll back to version " + version + " (" + p.getInfo().getName() + "): it is stored again as a new version and activated.")
        .raw("</p>");
    if (active > 0) {
      PolicyView.diff(h, "Active version " + active + " → version " + version, data.diff(active, version));
    }
    h.raw("<form method=\"post\" action=\"/policy/rollback\">").hidden(ConsoleAccess.FORM_TOKEN_FIELD, formToken(operator))
        .hidden("version", version).hidden("expected-version", active).hidden("confirm", "yes")
        .raw("<button type=\"submit\" class=\"primary\">Confirm: roll back to version " + version + "</button> ")
        .raw("<a href=\"/policy\">Cancel</a></form>");
    return h;
  }

  static void violations(Html h, String headline, java.util.List<PolicyViolation> violations) {
    h.raw("<div class=\"error\" role=\"alert\"><p>").text(headline).raw("</p><ul>");
    for (PolicyViolation v : violations) {
      h.raw("<li>").raw(v.getPath().isEmpty() ? "" : "<code>" + Html.escape(v.getPath()) + "</code>: ").text(v.getReason()).raw("</li>");
    }
    h.raw("</ul></div>");
  }

  private static void applyForm(Html h, ConsoleAccess.Operator operator, String yaml, String comment) {
    h.raw("<form method=\"post\" action=\"/policy/apply\" class=\"apply\">").hidden(ConsoleAccess.FORM_TOKEN_FIELD, formToken(operator))
        .raw("<label for=\"policy-yaml\">Policy document (YAML)</label>")
        .raw("<textarea id=\"policy-yaml\" name=\"yaml\" rows=\"18\" spellcheck=\"false\" required>").text(yaml).raw("</textarea>")
        .raw("<label for=\"policy-comment\">Comment (stored with the version)</label>")
        .raw("<input id=\"policy-comment\" name=\"comment\" type=\"text\" maxlength=\"200\" value=\"").raw(Html.attr(comment)).raw("\">")
        .raw("<button type=\"submit\">Review changes…</button></form>");
  }

  private static void meta(Html h, PolicyVersionInfo info) {
    h.raw("<p class=\"meta\">").text("Applied " + time(info.getAppliedAtUnixMillis()) + " by " + info.getAppliedBy()
        + (info.getComment().isEmpty() ? "" : ", comment: " + info.getComment())).raw("</p>");
  }

  private static void select(Html h, String name, String label, ListPolicyVersionsResponse versions, long selected) {
    h.raw("<div class=\"field\"><label for=\"d-").raw(name).raw("\">").text(label).raw("</label><select id=\"d-").raw(name)
        .raw("\" name=\"").raw(name).raw("\">");
    for (PolicyVersionInfo v : versions.getVersionsList()) {
      h.raw("<option value=\"" + v.getVersion() + "\"" + (v.getVersion() == selected ? " selected" : "") + ">")
          .text("v" + v.getVersion() + " " + v.getName()).raw("</option>");
    }
    h.raw("</select></div>");
  }

  static String formToken(ConsoleAccess.Operator operator) {
    return operator == null || operator.session() == null ? "" : operator.session().formToken;
  }

  static long number(Map<String, String> params, String name) {
    String v = params.getOrDefault(name, "").trim();
    if (v.isEmpty()) {
      return 0;
    }
    try {
      long n = Long.parseLong(v);
      if (n > 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // Reported below.
    }
    throw new BadRequestException(name + ": expected a policy version number, got \"" + v + "\"");
  }

  static String time(long millis) {
    return millis == 0 ? "-" : TIME.format(Instant.ofEpochMilli(millis));
  }
}
