package io.tcpopt.common.netfilter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tcpopt.common.testing.NamespacePrivileges;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link OwnedTable} against the real kernel, in a network namespace of its own (root only, else skipped). */
class OwnedTableTest {
  private static final List<String> BODY = List.of("chain input {", "type filter hook input priority 0; policy accept", "tcp dport 9 drop", "}");

  private final Commands root = new Commands(List.of());
  private String namespace;
  private Commands ns;

  @BeforeEach
  void namespace() {
    assumeTrue(NamespacePrivileges.canCreateNamespaces(), NamespacePrivileges.reason());
    namespace = "tcpopt-owned-" + ProcessHandle.current().pid();
    root.run(null, "ip", "netns", "del", namespace);
    assertTrue(root.run(null, "ip", "netns", "add", namespace).ok());
    ns = new Commands(List.of("ip", "netns", "exec", namespace));
  }

  @AfterEach
  void deleteNamespace() {
    if (namespace != null) {
      for (String pid : root.run(null, "ip", "netns", "pids", namespace).stdout().lines().toList()) {
        ProcessHandle.of(Long.parseLong(pid.trim())).ifPresent(ProcessHandle::destroyForcibly);
      }
      root.run(null, "ip", "netns", "del", namespace);
    }
  }

  @Test
  void theKernelOwnsTheTableAndCloseRemovesIt() {
    OwnedTable table = OwnedTable.install(ns, "inet", "tcpopt_test", BODY);
    assertEquals(OwnedTable.Ownership.KERNEL, table.ownership());
    String listing = ns.run(null, "nft", "list", "table", "inet", "tcpopt_test").stdout();
    assertTrue(listing.contains("flags owner") && listing.contains("tcp dport 9 drop"), listing);
    assertNull(table.problem());
    table.close();
    table.close();
    assertFalse(ns.run(null, "nft", "list", "tables").stdout().contains("tcpopt_test"));
  }

  @Test
  void aKilledChildTakesTheTableAndItIsInstalledAgain() throws Exception {
    OwnedTable table = OwnedTable.install(ns, "inet", "tcpopt_test", BODY);
    try {
      for (ProcessHandle child : children()) {
        child.destroyForcibly();
      }
      awaitTrue(() -> table.problem() != null, "the loss is reported");
      assertTrue(table.problem().contains("taking the table with it"), table.problem());
      awaitTrue(() -> table.problem() == null && ns.run(null, "nft", "list", "tables").stdout().contains("tcpopt_test"),
          "installed again");
      assertTrue(table.alive());
    } finally {
      table.close();
    }
    assertFalse(ns.run(null, "nft", "list", "tables").stdout().contains("tcpopt_test"));
  }

  @Test
  void withoutTheOwnerFlagTheTableIsInstalledPlainAndStillRemovedAtClose() {
    // A kernel without the flag, simulated: the owner flag turns into a syntax error on the way to nft.
    Commands oldKernel = new Commands(List.of("ip", "netns", "exec", namespace, "sh", "-c",
        "sed -u 's/flags owner;/flags unsupported;/' | \"$0\" \"$@\""));
    OwnedTable table = OwnedTable.install(oldKernel, "inet", "tcpopt_test", BODY);
    assertEquals(OwnedTable.Ownership.NONE, table.ownership());
    String listing = ns.run(null, "nft", "list", "table", "inet", "tcpopt_test").stdout();
    assertFalse(listing.contains("flags owner"), listing);
    table.close();
    assertFalse(ns.run(null, "nft", "list", "tables").stdout().contains("tcpopt_test"));
  }

  /** The nft children this JVM started inside the namespace. */
  private List<ProcessHandle> children() {
    List<ProcessHandle> out = new ArrayList<>();
    for (String pid : root.run(null, "ip", "netns", "pids", namespace).stdout().lines().toList()) {
      ProcessHandle.of(Long.parseLong(pid.trim())).filter(p -> p.info().command().orElse("").endsWith("nft")).ifPresent(out::add);
    }
    assertNotNull(out);
    assertFalse(out.isEmpty(), "no nft child found in " + namespace);
    return out;
  }

  private static void awaitTrue(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
    for (int i = 0; i < 300; i++) {
      if (condition.getAsBoolean()) {
        return;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("not within 15 s: " + what);
  }
}
