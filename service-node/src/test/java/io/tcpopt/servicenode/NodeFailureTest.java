package io.tcpopt.servicenode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The DC node stops mid-transfer: every client sees an error, never a clean EOF short of the size. */
class NodeFailureTest {
  private static final long SIZE = 1L << 30;

  static TestServer server;
  static TestNodes nodes;
  static final CompletableFuture<String> serverUploadOutcome = new CompletableFuture<>();

  @BeforeAll
  static void start() throws Exception {
    server = new TestServer(s -> {
      DataInputStream in = new DataInputStream(s.getInputStream());
      long down = in.readLong();
      if (down == 0) {
        try {
          Payload.readAll(in);
          serverUploadOutcome.complete("clean EOF");
        } catch (IOException e) {
          serverUploadOutcome.complete("error");
        }
        return;
      }
      try {
        Payload.write(s.getOutputStream(), down, 3);
      } catch (IOException e) {
        // expected once the DC node is gone
      }
    });
    nodes = TestNodes.start(null, 2, List.of(server.address()), "", "");
  }

  @AfterAll
  static void stop() throws Exception {
    TestNodes.closeAll(nodes, server);
  }

  @Test
  void clientsSeeAnErrorWhenTheDcNodeStops() throws Exception {
    ExecutorService pool = Executors.newCachedThreadPool();
    try {
      List<AtomicLong> received = new ArrayList<>();
      List<Future<String>> downloads = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        AtomicLong count = new AtomicLong();
        received.add(count);
        downloads.add(pool.submit(() -> {
          try (Socket s = new Socket()) {
            s.connect(nodes.listener(0), 5_000);
            s.setSoTimeout(20_000);
            new DataOutputStream(s.getOutputStream()).writeLong(SIZE);
            InputStream in = s.getInputStream();
            byte[] buf = new byte[65536];
            try {
              int n;
              while ((n = in.read(buf)) >= 0) {
                count.addAndGet(n);
              }
              return count.get() == SIZE ? "complete" : "clean EOF after " + count.get() + " bytes";
            } catch (IOException e) {
              return "error";
            }
          }
        }));
      }
      AtomicLong uploaded = new AtomicLong();
      Future<String> upload = pool.submit(() -> {
        try (Socket s = new Socket()) {
          s.connect(nodes.listener(0), 5_000);
          s.setSoTimeout(20_000);
          OutputStream out = s.getOutputStream();
          new DataOutputStream(out).writeLong(0);
          byte[] buf = new byte[65536];
          try {
            while (uploaded.get() < SIZE) {
              out.write(buf);
              uploaded.addAndGet(buf.length);
            }
            return "complete";
          } catch (IOException e) {
            return "error";
          }
        }
      });
      TestNodes.await(() -> received.stream().allMatch(c -> c.get() > (2 << 20)) && uploaded.get() > (2 << 20), 20_000, "transfers under way");
      nodes.dc.close();
      for (Future<String> d : downloads) {
        assertEquals("error", d.get(20, TimeUnit.SECONDS));
      }
      assertEquals("error", upload.get(20, TimeUnit.SECONDS));
      assertEquals("error", serverUploadOutcome.get(10, TimeUnit.SECONDS), "the server must see the upload reset, not a clean end");
      TestNodes.await(() -> nodes.branch.flows().active().isEmpty(), 5_000, "branch flows closed");
      assertTrue(nodes.branch.flows().closed().stream().noneMatch(r -> "completed".equals(r.closeReason())));
    } finally {
      pool.shutdownNow();
    }
  }
}
