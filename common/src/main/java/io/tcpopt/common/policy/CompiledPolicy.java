package io.tcpopt.common.policy;

import java.util.ArrayList;
import java.util.List;

/**
 * A {@link PolicyDocument} compiled for classifying new flows: sequences in ascending order, first
 * match wins, then the default action. Decisions are built once at compile time and shared.
 * Thread-safe and immutable.
 */
public final class CompiledPolicy {
  private final PolicyDocument document;
  private final List<Sequence> sequences;
  private final Decision[] decisions;
  private final Decision defaultDecision;

  private CompiledPolicy(PolicyDocument document) {
    this.document = document;
    this.sequences = document.sequences();
    List<Decision> ds = new ArrayList<>();
    for (Sequence s : sequences) {
      ds.add(decision(document, s));
    }
    this.decisions = ds.toArray(new Decision[0]);
    this.defaultDecision =
        new Decision(
            document.defaultAction(),
            0,
            null,
            null,
            "default action: " + document.defaultAction().yamlName() + " (no sequence matched)");
  }

  public static CompiledPolicy compile(PolicyDocument document) {
    return new CompiledPolicy(document);
  }

  static Decision decision(PolicyDocument d, Sequence s) {
    SequenceAction a = s.action();
    String where = "policy " + d.name() + " seq " + s.seq() + ": ";
    if (a.action() == Action.OPTIMIZE) {
      return new Decision(
          Action.OPTIMIZE, s.seq(), a.serviceNodeGroup(), d.legProfiles(a), where + "optimize via " + a.serviceNodeGroup());
    }
    return new Decision(a.action(), s.seq(), null, null, where + a.action().yamlName());
  }

  public PolicyDocument document() {
    return document;
  }

  /** The decision for a new flow. */
  public Decision classify(FlowKey k) {
    for (int i = 0; i < decisions.length; i++) {
      if (sequences.get(i).match().matches(k, document.prefixLists())) {
        return decisions[i];
      }
    }
    return defaultDecision;
  }
}
