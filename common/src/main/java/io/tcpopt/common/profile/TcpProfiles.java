package io.tcpopt.common.profile;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * The built-in profiles and the inheritance resolver. Built-ins form a small tree rooted at {@code
 * tcp}; user profiles (from a policy) name a parent, built-in or user-defined, and override fields.
 * Built-ins cannot be redefined, so a profile name always means the same settings on every node.
 */
public final class TcpProfiles {
  public static final String TCP = "tcp";
  public static final String LEGACY = "tcp-legacy";
  public static final String LAN_OPTIMIZED = "tcp-lan-optimized";
  public static final String WAN_OPTIMIZED = "tcp-wan-optimized";

  private static final long KIB = 1024;
  private static final long MIB = 1024 * KIB;

  /** Root defaults: what an ordinary Linux host does, plus Nagle off for a proxy. */
  private static final TcpProfile ROOT =
      new TcpProfile(
          TCP,
          null,
          0, // send-buffer: auto, the kernel's autotuning (net.ipv4.tcp_wmem)
          0, // receive-buffer: auto (net.ipv4.tcp_rmem)
          false, // nagle: off, a proxy forwards what it has at once
          "cubic", // congestion-control: the Linux default
          Duration.ofHours(2), // keepalive: 2h, Linux's tcp_keepalive_time
          Duration.ofHours(1), // idle-timeout: 1h
          128 * KIB, // proxy-buffer-high
          64 * KIB); // proxy-buffer-low

  private static final Map<String, TcpProfile> BUILT_INS;

  static {
    Map<String, TcpProfile> m = new LinkedHashMap<>();
    m.put(TCP, ROOT);
    // Old or embedded peers: classic Reno with Nagle and fixed 64KiB windows.
    m.put(
        LEGACY,
        new TcpProfile(
            LEGACY, TCP, 64 * KIB, 64 * KIB, true, "reno", ROOT.keepalive(), ROOT.idleTimeout(), 64 * KIB, 32 * KIB));
    // Short RTT, fast hosts: autotuned buffers, a bit more proxy buffering for bursts.
    m.put(
        LAN_OPTIMIZED,
        new TcpProfile(
            LAN_OPTIMIZED, TCP, 0, 0, false, "cubic", ROOT.keepalive(), ROOT.idleTimeout(), 256 * KIB, 128 * KIB));
    // Long fat pipe between nodes: BBR, buffers for a 250Mbit x 250ms BDP, keepalive that keeps NAT state warm.
    m.put(
        WAN_OPTIMIZED,
        new TcpProfile(
            WAN_OPTIMIZED,
            TCP,
            16 * MIB,
            16 * MIB,
            false,
            "bbr",
            Duration.ofSeconds(60),
            ROOT.idleTimeout(),
            8 * MIB,
            4 * MIB));
    BUILT_INS = Collections.unmodifiableMap(m);
  }

  private TcpProfiles() {}

  /** All built-in profiles by name, root first. */
  public static Map<String, TcpProfile> builtIns() {
    return BUILT_INS;
  }

  public static boolean isBuiltIn(String name) {
    return BUILT_INS.containsKey(name);
  }

  /** A built-in profile; fails on an unknown name. */
  public static TcpProfile builtIn(String name) {
    TcpProfile p = BUILT_INS.get(name);
    if (p == null) {
      throw new IllegalArgumentException("no built-in TCP profile \"" + name + "\"");
    }
    return p;
  }

  /**
   * Resolves user definitions against each other and the built-ins. Errors go to {@code errors} as
   * (path, reason) with paths under {@code basePath} (e.g. {@code tcp-profiles}): a redefined
   * built-in, an unknown parent, an inheritance cycle, proxy-buffer-high below proxy-buffer-low.
   *
   * @return built-ins plus every user profile that resolved, by name
   */
  public static Map<String, TcpProfile> resolve(
      Map<String, TcpProfileDefinition> definitions, String basePath, BiConsumer<String, String> errors) {
    Map<String, TcpProfile> out = new LinkedHashMap<>(BUILT_INS);
    String base = basePath.isEmpty() ? "" : basePath + ".";
    for (TcpProfileDefinition d : definitions.values()) {
      if (isBuiltIn(d.name())) {
        errors.accept(base + d.name(), "cannot redefine built-in profile \"" + d.name() + "\"");
      }
    }
    for (TcpProfileDefinition d : definitions.values()) {
      if (isBuiltIn(d.name())) {
        continue;
      }
      Inheritance.Chain<TcpProfileDefinition> walk =
          Inheritance.walk(d, definitions, TcpProfileDefinition::name, TcpProfileDefinition::parent, TcpProfiles::isBuiltIn);
      if (walk.failure() != null) {
        errors.accept(base + d.name() + ".parent", walk.failure());
      }
      if (!walk.resolved()) {
        continue;
      }
      List<TcpProfileDefinition> chain = walk.chain();
      Fields f = new Fields(BUILT_INS.get(walk.builtIn()));
      for (int i = chain.size() - 1; i >= 0; i--) {
        f.apply(chain.get(i));
      }
      if (f.proxyBufferHigh < f.proxyBufferLow) {
        String field = d.proxyBufferHigh() != null ? "proxy-buffer-high" : "proxy-buffer-low";
        errors.accept(
            base + d.name() + "." + field,
            "proxy-buffer-high "
                + Sizes.format(f.proxyBufferHigh)
                + " is below proxy-buffer-low "
                + Sizes.format(f.proxyBufferLow));
        continue;
      }
      out.put(d.name(), f.toProfile(d.name(), d.parent()));
    }
    return Collections.unmodifiableMap(out);
  }

  /** Field values while walking down an inheritance chain (intermediate states may be inconsistent). */
  private static final class Fields {
    long sendBuffer;
    long receiveBuffer;
    boolean nagle;
    String congestionControl;
    Duration keepalive;
    Duration idleTimeout;
    long proxyBufferHigh;
    long proxyBufferLow;

    Fields(TcpProfile p) {
      sendBuffer = p.sendBuffer();
      receiveBuffer = p.receiveBuffer();
      nagle = p.nagle();
      congestionControl = p.congestionControl();
      keepalive = p.keepalive();
      idleTimeout = p.idleTimeout();
      proxyBufferHigh = p.proxyBufferHigh();
      proxyBufferLow = p.proxyBufferLow();
    }

    void apply(TcpProfileDefinition d) {
      sendBuffer = d.sendBuffer() != null ? d.sendBuffer() : sendBuffer;
      receiveBuffer = d.receiveBuffer() != null ? d.receiveBuffer() : receiveBuffer;
      nagle = d.nagle() != null ? d.nagle() : nagle;
      congestionControl = d.congestionControl() != null ? d.congestionControl() : congestionControl;
      keepalive = d.keepalive() != null ? d.keepalive() : keepalive;
      idleTimeout = d.idleTimeout() != null ? d.idleTimeout() : idleTimeout;
      proxyBufferHigh = d.proxyBufferHigh() != null ? d.proxyBufferHigh() : proxyBufferHigh;
      proxyBufferLow = d.proxyBufferLow() != null ? d.proxyBufferLow() : proxyBufferLow;
    }

    TcpProfile toProfile(String name, String parent) {
      return new TcpProfile(
          name, parent, sendBuffer, receiveBuffer, nagle, congestionControl, keepalive, idleTimeout, proxyBufferHigh,
          proxyBufferLow);
    }
  }
}
