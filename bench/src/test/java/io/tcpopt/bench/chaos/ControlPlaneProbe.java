package io.tcpopt.bench.chaos;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import io.grpc.CallCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import io.tcpopt.proto.v1.ApplyPolicyRequest;
import io.tcpopt.proto.v1.ListPolicyVersionsRequest;
import io.tcpopt.proto.v1.ListPolicyVersionsResponse;
import io.tcpopt.proto.v1.NodeServiceGrpc;
import io.tcpopt.proto.v1.PolicyServiceGrpc;
import io.tcpopt.proto.v1.PolicyVersionInfo;
import io.tcpopt.proto.v1.RegisterRequest;
import io.tcpopt.proto.v1.RollbackPolicyRequest;
import io.tcpopt.proto.v1.StatusRequest;
import io.tcpopt.proto.v1.StatusResponse;
import io.tcpopt.proto.v1.StatusServiceGrpc;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * A control-plane client for the chaos suite, run inside a namespace on the packaged jar's class
 * path: it answers one line per command read from stdin, so the test drives live controllers
 * through their real gRPC API (TLS 1.3, as operator with the bearer token or as a node with a node
 * certificate) and tries the Hazelcast member port as a Hazelcast client would. Its protocol with
 * the test is its output, hence {@code System.out}.
 *
 * <p>Arguments: {@code CA TOKEN NODE_CERT NODE_KEY}. Commands ({@code ADDR} is {@code HOST:PORT}):
 *
 * <pre>
 *   status ADDR                     STATUS members=N quorum=true|false policy=N
 *   versions ADDR                   VERSIONS active=N v1=NAME:SHA,v2=...
 *   apply ADDR FILE EXPECTED        APPLIED version=N ms=N | REFUSED code=CODE ms=N why=...   (operator)
 *   race ADDR FILE VERSION EXPECTED an apply and a rollback to VERSION at once, both expecting EXPECTED:
 *                                   RACE apply=APPLIED...|REFUSED... rollback=...
 *   node-apply ADDR FILE            as apply, with the node certificate
 *   register ADDR NAME              REGISTERED | REFUSED code=CODE why=...                 (node certificate)
 *   hazelcast ADDR CLUSTER          CONNECTED | REFUSED why=...                            (a Hazelcast client)
 * </pre>
 */
final class ControlPlaneProbe {
  private final File ca;
  private final String token;
  private final File nodeCert;
  private final File nodeKey;
  private final Map<String, ManagedChannel> operatorChannels = new HashMap<>();
  private final Map<String, ManagedChannel> nodeChannels = new HashMap<>();

  private ControlPlaneProbe(String[] args) {
    this.ca = new File(args[0]);
    this.token = args[1];
    this.nodeCert = new File(args[2]);
    this.nodeKey = new File(args[3]);
  }

  public static void main(String[] args) throws Exception {
    ControlPlaneProbe probe = new ControlPlaneProbe(args);
    System.out.println("READY");
    System.out.flush();
    BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line = stdin.readLine(); line != null; line = stdin.readLine()) {
      String answer;
      try {
        answer = probe.answer(line.trim().split("\\s+"));
      } catch (Exception e) {
        answer = "ERROR " + e.toString().replace('\n', ' ');
      }
      System.out.println(answer);
      System.out.flush();
    }
    probe.operatorChannels.values().forEach(ManagedChannel::shutdownNow);
    probe.nodeChannels.values().forEach(ManagedChannel::shutdownNow);
    System.exit(0);
  }

  private String answer(String[] c) throws Exception {
    switch (c[0]) {
      case "status": {
        StatusResponse s = StatusServiceGrpc.newBlockingStub(operator(c[1])).withDeadlineAfter(10, TimeUnit.SECONDS)
            .status(StatusRequest.getDefaultInstance());
        return "STATUS members=" + s.getClusterMembers() + " quorum=" + s.getClusterQuorum() + " policy=" + s.getPolicyVersion();
      }
      case "versions": {
        ListPolicyVersionsResponse r = PolicyServiceGrpc.newBlockingStub(operator(c[1])).withDeadlineAfter(10, TimeUnit.SECONDS)
            .listVersions(ListPolicyVersionsRequest.getDefaultInstance());
        List<String> versions = new ArrayList<>();
        for (PolicyVersionInfo v : r.getVersionsList()) {
          versions.add("v" + v.getVersion() + "=" + v.getName() + ":" + v.getSha256().substring(0, 12));
        }
        return "VERSIONS active=" + r.getActiveVersion() + " " + String.join(",", versions);
      }
      case "apply":
        return apply(operator(c[1]), c[2], Long.parseLong(c[3]));
      case "node-apply":
        return apply(node(c[1]), c[2], 0);
      case "race": {
        PolicyServiceGrpc.PolicyServiceBlockingStub policy = PolicyServiceGrpc.newBlockingStub(operator(c[1]));
        long version = Long.parseLong(c[3]);
        long expected = Long.parseLong(c[4]);
        String yaml = Files.readString(Path.of(c[2]));
        CompletableFuture<String> apply = CompletableFuture.supplyAsync(() -> timed(() ->
            "APPLIED version=" + policy.withDeadlineAfter(30, TimeUnit.SECONDS).apply(ApplyPolicyRequest.newBuilder().setYaml(yaml)
                .setComment("chaos race").setExpectedActiveVersion(expected).build()).getInfo().getVersion()));
        CompletableFuture<String> rollback = CompletableFuture.supplyAsync(() -> timed(() ->
            "APPLIED version=" + policy.withDeadlineAfter(30, TimeUnit.SECONDS).rollback(RollbackPolicyRequest.newBuilder()
                .setVersion(version).setExpectedActiveVersion(expected).build()).getInfo().getVersion()));
        return "RACE apply=" + apply.get(60, TimeUnit.SECONDS).replace(' ', '_') + " rollback=" + rollback.get(60, TimeUnit.SECONDS).replace(' ', '_');
      }
      case "register":
        return timed(() -> {
          NodeServiceGrpc.newBlockingStub(node(c[1])).withDeadlineAfter(10, TimeUnit.SECONDS).register(
              RegisterRequest.newBuilder().setName(c[2]).setSite("dc").setFlowCapacity(10).build());
          return "REGISTERED";
        });
      case "hazelcast":
        return hazelcastClient(c[1], c[2]);
      default:
        return "UNKNOWN " + c[0];
    }
  }

  private String apply(ManagedChannel channel, String file, long expected) throws Exception {
    String yaml = Files.readString(Path.of(file));
    return timed(() -> "APPLIED version=" + PolicyServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
        .apply(ApplyPolicyRequest.newBuilder().setYaml(yaml).setComment("chaos").setExpectedActiveVersion(expected).build())
        .getInfo().getVersion());
  }

  private interface Call {
    String run();
  }

  /** The call's answer, or {@code REFUSED code=.. why=..}; with the time it took. */
  private static String timed(Call call) {
    long start = System.nanoTime();
    String answer;
    try {
      answer = call.run();
    } catch (StatusRuntimeException e) {
      String why = e.getStatus().getDescription() == null ? "" : e.getStatus().getDescription().replace('\n', ' ');
      return "REFUSED code=" + e.getStatus().getCode() + " ms=" + (System.nanoTime() - start) / 1_000_000 + " why=" + why;
    }
    return answer + " ms=" + (System.nanoTime() - start) / 1_000_000;
  }

  private static String hazelcastClient(String address, String cluster) {
    ClientConfig config = new ClientConfig();
    config.setClusterName(cluster);
    config.getNetworkConfig().addAddress(address).setConnectionTimeout(2000);
    config.getConnectionStrategyConfig().getConnectionRetryConfig().setClusterConnectTimeoutMillis(5000);
    config.setProperty("hazelcast.logging.type", "none");
    try {
      HazelcastClient.newHazelcastClient(config).shutdown();
      return "CONNECTED";
    } catch (RuntimeException e) {
      return "REFUSED why=" + e.getClass().getSimpleName();
    }
  }

  private ManagedChannel operator(String address) {
    ManagedChannel channel = operatorChannels.get(address);
    if (channel == null) {
      channel = channel(address, false);
      operatorChannels.put(address, channel);
    }
    // A controller that refused while it started would otherwise wait out gRPC's growing
    // reconnect backoff (tens of seconds on a loaded machine) after it listens.
    channel.resetConnectBackoff();
    return channel;
  }

  private ManagedChannel node(String address) {
    ManagedChannel channel = nodeChannels.get(address);
    if (channel == null) {
      channel = channel(address, true);
      nodeChannels.put(address, channel);
    }
    // A controller that refused while it started would otherwise wait out gRPC's growing
    // reconnect backoff (tens of seconds on a loaded machine) after it listens.
    channel.resetConnectBackoff();
    return channel;
  }

  /** TLS to a controller whose demo certificate names localhost (not its namespace address). */
  private ManagedChannel channel(String address, boolean asNode) {
    String[] hostPort = address.split(":");
    SslContextBuilder ssl = GrpcSslContexts.forClient().trustManager(ca);
    if (asNode) {
      ssl.keyManager(nodeCert, nodeKey);
    }
    io.grpc.netty.shaded.io.netty.handler.ssl.SslContext context;
    try {
      context = ssl.build();
    } catch (javax.net.ssl.SSLException e) {
      throw new IllegalStateException(e);
    }
    NettyChannelBuilder builder = NettyChannelBuilder.forAddress(hostPort[0], Integer.parseInt(hostPort[1]))
        .sslContext(context).overrideAuthority("localhost").maxInboundMessageSize(16 << 20);
    if (!asNode) {
      builder.intercept(new BearerInterceptor(token));
    }
    return builder.build();
  }

  /** Adds the operator bearer token to every call. */
  private static final class BearerInterceptor extends CallCredentials implements io.grpc.ClientInterceptor {
    private final String token;

    BearerInterceptor(String token) {
      this.token = token;
    }

    @Override
    public <Q, R> io.grpc.ClientCall<Q, R> interceptCall(io.grpc.MethodDescriptor<Q, R> method, io.grpc.CallOptions options,
        io.grpc.Channel next) {
      return next.newCall(method, options.withCallCredentials(this));
    }

    @Override
    public void applyRequestMetadata(RequestInfo info, Executor executor, MetadataApplier applier) {
      Metadata m = new Metadata();
      m.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + token);
      applier.apply(m);
    }
  }
}
