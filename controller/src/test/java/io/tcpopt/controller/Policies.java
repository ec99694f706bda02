package io.tcpopt.controller;

/** Policy documents shared by the tests. */
public final class Policies {
  private Policies() {}

  /** Optimizes branch to DC traffic through SNG-BR (site branch); everything else passes through. */
  public static final String BRANCH_TO_DC =
      """
      prefix-lists:
        BR10: [198.18.1.0/24]
        DC100: [198.19.1.0/24]
      service-node-groups:
        SNG-BR: { site: branch }
      data-policy:
        name: branch-to-dc
        sequences:
          - seq: 10
            match: { source-prefix-list: BR10, destination-prefix-list: DC100 }
            action: { optimize: { service-node-group: SNG-BR } }
        default-action: pass-through
      """;

  /** Same prefixes, but port 22 is dropped and everything else to the DC passes through. */
  public static final String DROP_SSH =
      """
      prefix-lists:
        BR10: [198.18.1.0/24]
        DC100: [198.19.1.0/24]
      service-node-groups:
        SNG-BR: { site: branch }
      data-policy:
        name: drop-ssh
        sequences:
          - seq: 5
            match: { destination-prefix-list: DC100, destination-port: 22 }
            action: drop
          - seq: 10
            match: { source-prefix-list: BR10, destination-prefix-list: DC100, destination-port: 5201 }
            action: { optimize: { service-node-group: SNG-BR } }
        default-action: pass-through
      """;
}
