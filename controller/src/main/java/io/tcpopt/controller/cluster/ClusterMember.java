package io.tcpopt.controller.cluster;

import com.hazelcast.cluster.Member;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.config.SplitBrainProtectionConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.splitbrainprotection.SplitBrainProtectionOn;
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

  private final ClusterConfig config;
  private final HazelcastInstance hazelcast;
  private final AtomicBoolean closed = new AtomicBoolean();

  private ClusterMember(ClusterConfig config, HazelcastInstance hazelcast) {
    this.config = config;
    this.hazelcast = hazelcast;
  }

  /** Starts the member and joins (or forms) the cluster; blocks until joined. */
  public static ClusterMember start(ClusterConfig config, String controllerName) {
    HazelcastInstance hz = Hazelcast.newHazelcastInstance(hazelcastConfig(config, controllerName));
    log.info(
        "controller {} joined Hazelcast cluster {} at {}:{} ({} members visible, {} needed for policy writes)",
        controllerName, config.clusterName(), config.bindAddress(), config.port(),
        hz.getCluster().getMembers().size(), config.minimumClusterSize());
    return new ClusterMember(config, hz);
  }

  static Config hazelcastConfig(ClusterConfig c, String controllerName) {
    Config config = new Config();
    config.setClusterName(c.clusterName());
    config.setInstanceName("tcpopt-" + controllerName + "-" + c.clusterName() + "-" + c.port());
    config.setProperty("hazelcast.logging.type", "slf4j");
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.setProperty("hazelcast.shutdownhook.enabled", "false");
    config.setProperty("hazelcast.socket.bind.any", "false");
    config.setProperty("hazelcast.heartbeat.interval.seconds", Long.toString(c.heartbeat().toSeconds()));
    config.setProperty("hazelcast.max.no.heartbeat.seconds", Long.toString(c.maxNoHeartbeat().toSeconds()));
    config.setProperty("hazelcast.wait.seconds.before.join", Long.toString(c.joinWait().toSeconds()));
    config.setProperty("hazelcast.max.wait.seconds.before.join", Long.toString(Math.max(c.joinWait().toSeconds(), 1) * 2));
    config.setProperty("hazelcast.merge.first.run.delay.seconds", "5");
    config.setProperty("hazelcast.merge.next.run.delay.seconds", "5");
    config.setProperty("hazelcast.tcp.join.port.try.count", "1");

    NetworkConfig network = config.getNetworkConfig();
    network.setPort(c.port()).setPortAutoIncrement(false);
    network.getInterfaces().setEnabled(true).addInterface(c.bindAddress());
    network.setPublicAddress(c.bindAddress() + ":" + c.port());
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
    return config;
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

  /** Leaves the cluster gracefully (partitions migrate to the remaining members); idempotent. */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      hazelcast.shutdown();
    }
  }
}
