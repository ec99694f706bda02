package io.tcpopt.servicenode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.servicenode.flow.FlowKind;
import io.tcpopt.servicenode.flow.FlowRecord;
import io.tcpopt.servicenode.flow.FlowTableSnapshot;
import java.io.InputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A new optimized flow costs its client one WAN round trip where direct TCP costs two (its
 * handshake, then its request): the branch answers the client's handshake on the LAN, the first
 * bytes leave in the OPEN, nothing waits for the OPEN to be acknowledged before relaying, and the
 * DC connects to the server as soon as the OPEN arrives. Over a WAN of a 400 ms round trip (a
 * {@link WanLinkProxy} delaying each direction by 200 ms), each new flow's echo comes back in less
 * than 1.5 round trips (an extra round trip anywhere on the setup path would make it 2); every
 * byte checked.
 */
class FlowSetupRoundTripsTest {
  private static final Logger log = LoggerFactory.getLogger(FlowSetupRoundTripsTest.class);
  private static final Duration ONE_WAY = Duration.ofMillis(200);
  private static final long RTT_MILLIS = 2 * ONE_WAY.toMillis();
  private static final int FLOWS = 5;
  private static final int SIZE = 1024;

  /** Echoes one request of {@link #SIZE} bytes, then closes (the server closes first). */
  private static void echo(Socket s) throws Exception {
    byte[] request = s.getInputStream().readNBytes(SIZE);
    s.getOutputStream().write(request);
    s.close();
  }

  @Test
  void aNewFlowsEchoTakesOneWanRoundTrip() throws Exception {
    try (ProxiedWanPair pair = ProxiedWanPair.start(FlowSetupRoundTripsTest::echo, 1, "", "", 0, ONE_WAY)) {
      List<Long> millis = new ArrayList<>();
      for (int i = 0; i < FLOWS; i++) {
        byte[] request = new byte[SIZE];
        for (int j = 0; j < SIZE; j++) {
          request[j] = (byte) (i * 31 + j);
        }
        long start = System.nanoTime();
        try (Socket client = new Socket()) {
          client.connect(pair.nodes.listener(0), 5_000);
          client.setSoTimeout(10_000);
          client.getOutputStream().write(request);
          InputStream in = client.getInputStream();
          byte[] answer = in.readNBytes(SIZE);
          millis.add((System.nanoTime() - start) / 1_000_000);
          assertArrayEquals(request, answer, "flow " + i + ": every byte echoed");
          assertEquals(-1, in.read(), "flow " + i + ": the server's FIN follows the echo");
        }
      }
      log.info("first echo after connect, {} flows over a {} ms WAN round trip: {} ms", FLOWS, RTT_MILLIS, millis);
      FlowTableSnapshot table = pair.nodes.branch.flows();
      List<FlowRecord> flows = new ArrayList<>(table.closed());
      flows.addAll(table.active()); // the last may still wait for the DC's delivery acknowledgement
      assertEquals(FLOWS, flows.stream().filter(r -> r.kind() == FlowKind.OPTIMIZED).count(), "every flow optimized: " + flows);
      List<Long> sorted = new ArrayList<>(millis);
      Collections.sort(sorted);
      assertTrue(sorted.get(0) >= RTT_MILLIS, "the WAN delay applies: " + millis);
      assertTrue(sorted.get(FLOWS / 2) < RTT_MILLIS * 3 / 2, "the median flow waited one WAN round trip, not two: " + millis + " ms");
    }
  }
}
