package io.tcpopt.cli.node;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tcpopt.proto.v1.Flow;
import io.tcpopt.servicenode.flow.FlowKind;
import io.tcpopt.servicenode.flow.FlowRecord;
import io.tcpopt.servicenode.flow.FlowState;
import io.tcpopt.servicenode.flow.HttpReuseFigures;
import io.tcpopt.servicenode.flow.TlsFigures;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The application profiles of a flow reach the flows API: as services and as details. */
class FlowProtoTest {
  private static FlowRecord record(HttpReuseFigures reuse, TlsFigures tls) {
    Instant t = Instant.parse("2026-01-01T00:00:00Z");
    return new FlowRecord(7, FlowKind.OPTIMIZED, "policy p seq 1: optimize via G", FlowState.OPEN, new InetSocketAddress("198.18.1.2", 40000),
        new InetSocketAddress("198.19.1.2", 8080), "dc-1", t, t, null, 10, 20, 0, 0, 1000, 10, 0, null, null, reuse, tls);
  }

  @Test
  void reuseAndTlsShowAsServicesWithTheirFigures() {
    Flow atDc = IntegratedServiceNode.toProto(record(new HttpReuseFigures(3, 2, "#12 198.19.1.1:40112->198.19.1.2:8080", null), null),
        "dc-1", "dc", Instant.parse("2026-01-01T00:00:01Z"));
    assertEquals(List.of("tcp-optimization", "http-reuse"), atDc.getServicesList());
    assertEquals("3 requests, 2 reused, last on #12 198.19.1.1:40112->198.19.1.2:8080", atDc.getHttpReuse());
    assertEquals("", atDc.getTls());

    Flow atBranch = IntegratedServiceNode.toProto(
        record(null, new TlsFigures("TLSv1.3", "TLS_AES_128_GCM_SHA256", true, 16384, 48, 12)), "branch-1", "branch", Instant.now());
    assertEquals(List.of("tcp-optimization", "ssl"), atBranch.getServicesList());
    assertEquals("TLSv1.3 TLS_AES_128_GCM_SHA256, records 48 small / 12 full, now 16384", atBranch.getTls());

    Flow fellBack = IntegratedServiceNode.toProto(record(new HttpReuseFigures(0, 0, "#3 a->b", "upgrade"), null), "dc-1", "dc", Instant.now());
    assertEquals("0 requests, 0 reused, last on #3 a->b, fallback: upgrade", fellBack.getHttpReuse());
  }
}
