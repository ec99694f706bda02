package io.tcpopt.controller.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.controller.Policies;
import io.tcpopt.controller.TestClusters;
import io.tcpopt.controller.cluster.ClusterMember;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * An apply and a rollback started together, both based on the same active version, on a real
 * Hazelcast member: exactly one becomes active, the other is refused with CONFLICT, never silently
 * undone.
 */
class PolicyStoreRaceTest {
  private static final int ROUNDS = 5;

  @Test
  void aRollbackRacingAnApplyIsReportedNotLost() throws Exception {
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try (ClusterMember cluster = TestClusters.start(TestClusters.single(), "ctl-race")) {
      PolicyStore store = new PolicyStore(cluster, "ctl-race", Clock.systemUTC(), Duration.ofSeconds(1));
      try {
        PolicyVersion first = store.apply(Policies.BRANCH_TO_DC, "first", -1);
        for (int round = 0; round < ROUNDS; round++) {
          long base = store.activeVersionInCluster();
          CyclicBarrier start = new CyclicBarrier(2);
          Future<PolicyVersion> apply = threads.submit(race(start, () -> store.apply(Policies.DROP_SSH, "apply", base)));
          Future<PolicyVersion> rollback = threads.submit(race(start, () -> store.rollback(first.version(), base)));
          List<PolicyVersion> won = new ArrayList<>();
          List<String> refused = new ArrayList<>();
          for (Future<PolicyVersion> f : List.of(apply, rollback)) {
            try {
              won.add(f.get(30, TimeUnit.SECONDS));
            } catch (java.util.concurrent.ExecutionException e) {
              PolicyStoreException refusal = (PolicyStoreException) e.getCause();
              assertEquals(PolicyStoreException.Kind.CONFLICT, refusal.kind(), refusal::getMessage);
              refused.add(refusal.getMessage());
            }
          }
          assertEquals(1, won.size(), () -> "round " + base + ": exactly one change wins, refused: " + refused);
          assertEquals(1, refused.size());
          assertTrue(refused.get(0).contains("not v" + base + " as expected"), refused.get(0));
          assertEquals(won.get(0).version(), store.activeVersionInCluster(), "the winner is active, and stays so");
        }
      } finally {
        store.close();
      }
    } finally {
      threads.shutdownNow();
    }
  }

  private static Callable<PolicyVersion> race(CyclicBarrier start, Callable<PolicyVersion> change) {
    return () -> {
      start.await(10, TimeUnit.SECONDS);
      return change.call();
    };
  }
}
