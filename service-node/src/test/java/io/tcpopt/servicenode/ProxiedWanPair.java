package io.tcpopt.servicenode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;

/**
 * A branch/DC pair on loopback ({@link TestNodes}, plaintext sessions) whose WAN connections pass
 * a {@link WanLinkProxy}, with one {@link TestServer} behind the DC that the branch's listener 0
 * reaches: the fixture of the tests that shape or sever the WAN between two live nodes. Closed in
 * reverse order of start: nodes, proxy, server.
 */
final class ProxiedWanPair implements AutoCloseable {
  final TestServer server;
  final WanLinkProxy link;
  final TestNodes nodes;

  private ProxiedWanPair(TestServer server, WanLinkProxy link, TestNodes nodes) {
    this.server = server;
    this.link = link;
    this.nodes = nodes;
  }

  /**
   * Starts the server, then the pair; the branch dials the DC through a proxy moving at most
   * {@code bytesPerSecond} each way per connection (0: no limit).
   *
   * @param connections WAN connections in the branch's pool
   * @param wanExtra extra YAML lines for both nodes' {@code wan} section (indented 4 spaces)
   */
  static ProxiedWanPair start(TestServer.Handler serve, int connections, String wanExtra, long bytesPerSecond) throws IOException {
    return start(serve, connections, wanExtra, "", bytesPerSecond);
  }

  /** As above, with {@code nodeExtra} for both nodes' {@code service-node} section (e.g. {@code "flows: { buffer-budget: 64MiB }"}). */
  static ProxiedWanPair start(TestServer.Handler serve, int connections, String wanExtra, String nodeExtra, long bytesPerSecond) throws IOException {
    return start(serve, connections, wanExtra, nodeExtra, bytesPerSecond, Duration.ZERO);
  }

  /** As above, the proxy delaying every byte {@code oneWayDelay} each way instead of limiting the rate. */
  static ProxiedWanPair start(TestServer.Handler serve, int connections, String wanExtra, String nodeExtra, long bytesPerSecond,
      Duration oneWayDelay) throws IOException {
    TestServer server = new TestServer(serve);
    WanLinkProxy[] link = new WanLinkProxy[1];
    try {
      TestNodes nodes = TestNodes.start(null, connections, List.of(server.address()), wanExtra, "", nodeExtra, dc -> {
        try {
          link[0] = new WanLinkProxy(dc, bytesPerSecond, oneWayDelay);
          return link[0].address();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
      return new ProxiedWanPair(server, link[0], nodes);
    } catch (RuntimeException | Error e) {
      if (link[0] != null) {
        link[0].close();
      }
      server.close();
      throw e;
    }
  }

  @Override
  public void close() throws IOException {
    try {
      nodes.close();
    } finally {
      try {
        link.close();
      } finally {
        server.close();
      }
    }
  }
}
