package io.tcpopt.servicenode.trust;

import java.net.InetAddress;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Collections;
import java.util.HashSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The addresses of this host's interfaces and the broadcast addresses of their subnets, as last
 * read by {@link #refresh} (the node refreshes them every few seconds off the event loops, so an
 * address added at run time is known within that time). Reads are lock-free.
 */
public final class HostAddresses {
  private static final Logger log = LoggerFactory.getLogger(HostAddresses.class);

  private record Snapshot(Set<InetAddress> own, Set<InetAddress> broadcast) {}

  private final boolean fixed;
  private volatile Snapshot snapshot = new Snapshot(Set.of(), Set.of());

  private HostAddresses(boolean fixed) {
    this.fixed = fixed;
  }

  /** This host's addresses, read now. */
  public static HostAddresses ofHost() {
    return new HostAddresses(false).refresh();
  }

  /** Fixed addresses, never read from the host (tests). */
  static HostAddresses fixed(Set<InetAddress> own, Set<InetAddress> broadcast) {
    HostAddresses h = new HostAddresses(true);
    h.snapshot = new Snapshot(Set.copyOf(own), Set.copyOf(broadcast));
    return h;
  }

  /** Reads the interfaces now (blocking: a few system calls); keeps the previous view if that fails. */
  public HostAddresses refresh() {
    if (fixed) {
      return this;
    }
    Set<InetAddress> own = new HashSet<>();
    Set<InetAddress> broadcast = new HashSet<>();
    try {
      for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
        for (InterfaceAddress a : nic.getInterfaceAddresses()) {
          if (a.getAddress() != null) {
            own.add(strip(a.getAddress()));
          }
          if (a.getBroadcast() != null) {
            broadcast.add(a.getBroadcast());
          }
        }
      }
    } catch (SocketException | RuntimeException e) {
      log.warn("cannot read this host's interface addresses, keeping the last ones: {}", e.toString());
      return this;
    }
    snapshot = new Snapshot(Set.copyOf(own), Set.copyOf(broadcast));
    return this;
  }

  /** Whether {@code address} is one of this host's interface addresses. */
  public boolean isOwn(InetAddress address) {
    return snapshot.own().contains(strip(address));
  }

  /** Whether {@code address} is the broadcast address of one of this host's subnets. */
  public boolean isSubnetBroadcast(InetAddress address) {
    return snapshot.broadcast().contains(address);
  }

  /** Without an IPv6 scope (fe80::1%eth0 equals fe80::1 here). */
  private static InetAddress strip(InetAddress a) {
    if (a instanceof java.net.Inet6Address v6 && v6.getScopeId() != 0) {
      try {
        return InetAddress.getByAddress(a.getAddress());
      } catch (java.net.UnknownHostException e) {
        return a;
      }
    }
    return a;
  }
}
