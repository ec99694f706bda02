package io.tcpopt.cli.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class MetricsEndpointTest {
  @Test
  void servesTheRegistryWithJvmMetricsAndNodeTags() throws Exception {
    PrometheusMeterRegistry registry = MetricsEndpoint.newRegistry("branch-1", "branch");
    Counter counter = registry.counter("tcpopt.test.bytes");
    try (MetricsEndpoint endpoint = MetricsEndpoint.start(new InetSocketAddress("127.0.0.1", 0), registry)) {
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      URI uri = URI.create("http://127.0.0.1:" + endpoint.address().getPort() + "/metrics");
      counter.increment(5);
      String first = http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString()).body();
      assertTrue(first.contains("tcpopt_test_bytes_total{node=\"branch-1\",site=\"branch\"} 5.0"), first);
      assertTrue(first.contains("jvm_memory_used_bytes"), "JVM binders missing");
      counter.increment(2);
      String second = http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString()).body();
      assertTrue(second.contains("tcpopt_test_bytes_total{node=\"branch-1\",site=\"branch\"} 7.0"), second);
      HttpResponse<String> missing = http.send(
          HttpRequest.newBuilder(uri.resolve("/nope")).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(404, missing.statusCode());
    } finally {
      registry.close();
    }
  }
}
