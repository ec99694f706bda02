package io.tcpopt.servicenode;

import io.tcpopt.common.config.ConfigTree;
import java.net.InetAddress;
import java.net.UnknownHostException;

/** An IPv4 or IPv6 prefix such as {@code 198.19.1.0/24}, parsed without DNS. */
record Cidr(byte[] network, int length, String text) {
  static Cidr parse(ConfigTree item) {
    String s = item.asString().trim();
    int slash = s.indexOf('/');
    String host = slash < 0 ? s : s.substring(0, slash);
    if (!host.matches("[0-9.]+") && !host.contains(":")) {
      throw item.error("expected a prefix such as 198.19.1.0/24, got \"" + s + "\"");
    }
    byte[] raw;
    try {
      raw = InetAddress.getByName(host).getAddress();
    } catch (UnknownHostException | SecurityException e) {
      throw item.error("expected a prefix such as 198.19.1.0/24, got \"" + s + "\"");
    }
    int max = raw.length * 8;
    int len;
    try {
      len = slash < 0 ? max : Integer.parseInt(s.substring(slash + 1));
    } catch (NumberFormatException e) {
      throw item.error("bad prefix length in \"" + s + "\"");
    }
    if (len < 0 || len > max) {
      throw item.error("prefix length must be between 0 and " + max + ", got " + len);
    }
    return new Cidr(raw, len, s);
  }

  boolean contains(InetAddress address) {
    byte[] a = address.getAddress();
    if (a.length != network.length) {
      return false;
    }
    int full = length / 8;
    for (int i = 0; i < full; i++) {
      if (a[i] != network[i]) {
        return false;
      }
    }
    int rest = length % 8;
    if (rest == 0) {
      return true;
    }
    int mask = (0xff << (8 - rest)) & 0xff;
    return (a[full] & mask) == (network[full] & mask);
  }

  @Override
  public String toString() {
    return text;
  }
}
