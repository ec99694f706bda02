package io.tcpopt.common.policy;

/** An inclusive TCP port range; a single port has {@code low == high}. */
public record PortRange(int low, int high) {
  public PortRange {
    if (low < 0 || high > 65535 || low > high) {
      throw new IllegalArgumentException("bad port range " + low + "-" + high);
    }
  }

  public boolean contains(int port) {
    return port >= low && port <= high;
  }

  /** {@code 443} or {@code 8000-8999}, as written in policy YAML. */
  @Override
  public String toString() {
    return low == high ? Integer.toString(low) : low + "-" + high;
  }
}
