package io.tcpopt.controller.cluster;

import com.hazelcast.cluster.Member;
import com.hazelcast.config.Config;
import com.hazelcast.config.AdvancedNetworkConfig;
import com.hazelcast.config.ClassFilter;
import com.hazelcast.config.InterfacesConfig;
import com.hazelcast.config.JavaSerializationFilterConfig;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.SerializationConfig;
import com.hazelcast.config.ServerSocketEndpointConfig;
import com.hazelcast.config.SplitBrainProtectionConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.nio.serialization.compact.CompactSerializer;
import com.hazelcast.splitbrainprotection.SplitBrainProtectionOn;
import io.tcpopt.common.netfilter.Commands;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One controller's embedded Hazelcast member. The policy maps ({@code tcpopt.policy.*}) are
 * guarded by split-brain protection on writes: a member that sees fewer than {@link
 * ClusterConfig#minimumClusterSize()} members refuses them with a {@code
 * SplitBrainProtectionException}, so two halves of a partitioned cluster can never activate
 * different policies. Membership maps are not guarded: nodes keep heartbeating whatever side they
 * reach.
 *
 * <p><b>Exposure.</b> Open-source Hazelcast has no TLS and no member authentication, so the member
 * is kept small and private: it binds exactly {@link ClusterConfig#bindAddress()} (an IP literal,
 * never every interface, no address auto-detection, multicast and auto-detection off), serves only
 * the member protocol (the advanced network config has no client, REST or memcache endpoint, so a
 * Hazelcast client cannot connect at all), admits connections only from the listed members and
 * this host ({@link MemberAllowList}, unless bound to loopback), and stores and exchanges only
 * Compact data with registered serializers: Java serialization is refused for every class but
 * Hazelcast's own and the JDK's basics (exceptions in responses), so no gadget class is ever
 * deserialized. A member on a public address is logged as a warning.
 *
 * <p>Hazelcast calls block; callers keep them off Netty event loops.
 */
public final class ClusterMember implements AutoCloseable {
  /** Name of the split-brain protection rule guarding policy writes. */
  public static final String POLICY_PROTECTION = "tcpopt-policy-writes";
  /** Prefix of the maps holding the policy store. */
  public static final String POLICY_MAPS = "tcpopt.policy.";
  /** Prefix of the maps holding membership. */
  public static final String MEMBERSHIP_MAPS = "tcpopt.nodes";

  private static final Logger log = LoggerFactory.getLogger(ClusterMember.class);
  private static final Duration MAX_JOIN = Duration.ofSeconds(15);

  private final ClusterConfig config;
  private final HazelcastInstance hazelcast;
  private final MemberAllowList allowList;
  private final AtomicBoolean closed = new AtomicBoolean();

  private ClusterMember(ClusterConfig config, HazelcastInstance hazelcast, MemberAllowList allowList) {
    this.config = config;
    this.hazelcast = hazelcast;
    this.allowList = allowList;
  }

  /**
   * Installs the member allow-list, starts the member and joins (or forms) the cluster; blocks
   * until joined.
   *
   * @param storedTypes the Compact serializers of every value and entry processor the caller puts
   *     into the cluster ({@code PolicyStore.STORED_TYPES}, {@code NodeRegistry.STORED_TYPES})
   */
  public static ClusterMember start(ClusterConfig config, String controllerName, List<CompactSerializer<?>> storedTypes) {
    warnIfPublic(config);
    MemberAllowList allowList = MemberAllowList.install(config, new Commands(List.of()));
    HazelcastInstance hz;
    try {
      hz = Hazelcast.newHazelcastInstance(hazelcastConfig(config, controllerName, storedTypes));
    } catch (RuntimeException e) {
      if (allowList != null) {
        allowList.close();
      }
      throw e;
    }
    log.info(
        "controller {} joined Hazelcast cluster {} at {}:{} ({} members visible, {} needed for policy writes)",
        controllerName, config.clusterName(), config.bindAddress(), config.port(),
        hz.getCluster().getMembers().size(), config.minimumClusterSize());
    return new ClusterMember(config, hz, allowList);
  }

  private static void warnIfPublic(ClusterConfig c) {
    try {
      InetAddress a = InetAddress.getByName(c.bindAddress());
      if (!a.isLoopbackAddress() && !a.isSiteLocalAddress() && !a.isLinkLocalAddress() && !isUniqueLocal(a)) {
        log.warn("Hazelcast member on {}, which is not a private address: the member protocol has no encryption or authentication; "
            + "bind it to a private or management-network address", c.bindAddress());
      }
    } catch (UnknownHostException e) {
      // ClusterConfig accepts only IP literals
    }
  }

  private static boolean isUniqueLocal(InetAddress a) {
    return a.getAddress().length == 16 && (a.getAddress()[0] & 0xfe) == 0xfc;
  }

  static Config hazelcastConfig(ClusterConfig c, String controllerName, List<CompactSerializer<?>> storedTypes) {
    Config config = new Config();
    config.setClusterName(c.clusterName());
    config.setInstanceName("tcpopt-" + controllerName + "-" + c.clusterName() + "-" + c.port());
    config.setProperty("hazelcast.logging.type", "slf4j");
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.setProperty("hazelcast.shutdownhook.enabled", "false");
    config.setProperty("hazelcast.socket.bind.any", "false");
    config.setProperty("hazelcast.socket.server.bind.any", "false");
    config.setProperty("hazelcast.heartbeat.interval.seconds", Long.toString(c.heartbeat().toSeconds()));
    config.setProperty("hazelcast.max.no.heartbeat.seconds", Long.toString(c.maxNoHeartbeat().toSeconds()));
    config.setProperty("hazelcast.wait.seconds.before.join", Long.toString(c.joinWait().toSeconds()));
    config.setProperty("hazelcast.max.wait.seconds.before.join", Long.toString(Math.max(c.joinWait().toSeconds(), 1) * 2));
    config.setProperty("hazelcast.merge.first.run.delay.seconds", "5");
    config.setProperty("hazelcast.merge.next.run.delay.seconds", "5");
    config.setProperty("hazelcast.tcp.join.port.try.count", "1");
    // Members that are unreachable without refusing (a partition, or an allow-list dropping us)
    // must not hold a starting controller for Hazelcast's default 300 s: it forms (or stays) a
    // cluster of its own after this long and merges when the others become reachable.
    config.setProperty("hazelcast.max.join.seconds", Long.toString(MAX_JOIN.toSeconds()));

    // Members only: with the advanced network config and no client endpoint, the port speaks no
    // client protocol (no Hazelcast client can connect); REST and memcache are off.
    AdvancedNetworkConfig network = config.getAdvancedNetworkConfig().setEnabled(true);
    network.setMemberEndpointConfig(new ServerSocketEndpointConfig()
        .setPort(c.port())
        .setPortAutoIncrement(false)
        .setInterfaces(new InterfacesConfig().setEnabled(true).addInterface(c.bindAddress()))
        .setPublicAddress(c.bindAddress() + ":" + c.port()));
    JoinConfig join = network.getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    join.getTcpIpConfig().setEnabled(true).setConnectionTimeoutSeconds(2).setMembers(c.members());

    // Two synchronous backups (Hazelcast keeps as many as there are other members): the policy
    // survives losing any two of three controllers. Every member must use the same settings.
    MapConfig policyMaps = new MapConfig(POLICY_MAPS + "*").setBackupCount(2);
    if (c.minimumClusterSize() > 1) {
      // A lone controller (minimum 1) needs no protection; Hazelcast would also report a
      // protection that never saw a membership change as unsatisfied.
      SplitBrainProtectionConfig protection =
          new SplitBrainProtectionConfig(POLICY_PROTECTION, true, c.minimumClusterSize());
      protection.setProtectOn(SplitBrainProtectionOn.WRITE);
      config.addSplitBrainProtectionConfig(protection);
      policyMaps.setSplitBrainProtectionName(POLICY_PROTECTION);
    }
    config.addMapConfig(policyMaps);
    config.addMapConfig(new MapConfig(MEMBERSHIP_MAPS).setBackupCount(1));

    SerializationConfig serialization = config.getSerializationConfig();
    serialization.getCompactSerializationConfig()
        .setSerializers(storedTypes.toArray(CompactSerializer<?>[]::new))
        .setZeroConfigFilter(new JavaSerializationFilterConfig().setDefaultsDisabled(true)
            .setWhitelist(new ClassFilter().addClasses("io.tcpopt.none")));
    serialization.setJavaSerializationFilterConfig(javaSerializationFilter());
    return config;
  }

  /**
   * Java serialization is refused for every class outside this allow-list. What Hazelcast itself
   * still Java-serializes (exceptions carried in error responses, with their stack traces) needs
   * only its own classes and java.lang/java.util; tcpopt's values never travel that way.
   */
  static JavaSerializationFilterConfig javaSerializationFilter() {
    return new JavaSerializationFilterConfig()
        .setDefaultsDisabled(true)
        .setWhitelist(new ClassFilter().addPrefixes("com.hazelcast.", "java.lang.", "java.util.", "["));
  }

  public HazelcastInstance hazelcast() {
    return hazelcast;
  }

  public ClusterConfig config() {
    return config;
  }

  /** Members this controller currently sees, itself included. */
  public int visibleMembers() {
    if (!hazelcast.getLifecycleService().isRunning()) {
      return 0;
    }
    Set<Member> members = hazelcast.getCluster().getMembers();
    return members.size();
  }

  /** Whether policy writes are allowed here (this side sees at least the minimum cluster size). */
  public boolean hasWriteQuorum() {
    if (!hazelcast.getLifecycleService().isRunning()) {
      return false;
    }
    if (config.minimumClusterSize() <= 1) {
      return true;
    }
    return hazelcast.getSplitBrainProtectionService().getSplitBrainProtection(POLICY_PROTECTION).hasMinimumSize();
  }

  /** Why the member port is not protected as configured right now (its allow-list was lost), if so. */
  public Optional<String> exposureProblem() {
    return allowList == null ? Optional.empty() : Optional.ofNullable(allowList.problem());
  }

  /** Leaves the cluster gracefully (partitions migrate to the remaining members), then removes the allow-list; idempotent. */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      hazelcast.shutdown();
      if (allowList != null) {
        allowList.close();
      }
    }
  }
}
