package io.tcpopt.common.net;

import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * A {@code HOST:PORT} (or {@code [V6]:PORT}) as written in configuration, on command lines and in
 * flow records: the one parser and formatter of such text. Parsing never touches DNS; {@link
 * #resolve()} resolves names (literals without DNS), {@link #unresolved()} leaves them to the
 * caller (gRPC resolves its own targets).
 *
 * @param host the host name or address literal, without brackets
 * @param port 0 to 65535
 */
public record HostPort(String host, int port) {
  /**
   * Parses {@code text}.
   *
   * @throws IllegalArgumentException with a message fit to follow a field name, e.g. {@code
   *     expected HOST:PORT, got "nowhere"}
   */
  public static HostPort parse(String text) {
    String s = text.trim();
    int colon = s.lastIndexOf(':');
    if (colon <= 0 || colon == s.length() - 1) {
      throw new IllegalArgumentException("expected HOST:PORT, got \"" + text + "\"");
    }
    String host = s.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port;
    try {
      port = Integer.parseInt(s.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("expected HOST:PORT with a numeric port, got \"" + text + "\"");
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be between 0 and 65535, got " + port);
    }
    return new HostPort(host, port);
  }

  /**
   * Lenient form for text that names a host and perhaps a port (flow records, Hazelcast member
   * lists): {@code HOST}, {@code HOST:PORT}, {@code [V6]}, {@code [V6]:PORT}, or a bare IPv6 address
   * (two colons or more, no brackets: all host). The host without brackets and the port, or port
   * -1 when there is none or it is not a number.
   */
  public static HostPort lenient(String text) {
    if (text.startsWith("[") && text.indexOf(']') > 0) {
      int close = text.indexOf(']');
      return new HostPort(text.substring(1, close), text.startsWith(":", close + 1) ? portOrNone(text.substring(close + 2)) : -1);
    }
    int colon = text.indexOf(':');
    if (colon < 0 || colon != text.lastIndexOf(':')) {
      return new HostPort(text, -1);
    }
    return new HostPort(text.substring(0, colon), portOrNone(text.substring(colon + 1)));
  }

  private static int portOrNone(String text) {
    try {
      return Integer.parseInt(text);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** Resolves the host (a literal without DNS). */
  public InetSocketAddress resolve() {
    InetSocketAddress address = new InetSocketAddress(host, port);
    if (address.isUnresolved()) {
      throw new IllegalArgumentException("cannot resolve host " + host);
    }
    return address;
  }

  /** An unresolved address: name resolution is the caller's. */
  public InetSocketAddress unresolved() {
    return InetSocketAddress.createUnresolved(host, port);
  }

  /** {@code ADDRESS:PORT}, IPv6 in brackets (RFC 5952 text); the host string when the address is unresolved; "" for null. */
  public static String format(InetSocketAddress a) {
    if (a == null) {
      return "";
    }
    String host = a.getAddress() == null ? a.getHostString() : address(a.getAddress());
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + a.getPort();
  }

  /** An address as text: a dotted quad, or IPv6 compressed as RFC 5952 has it ({@code 2001:2:0:1801::2}). */
  public static String address(InetAddress a) {
    return text(a.getAddress());
  }

  /** {@link #address} of raw address bytes (4 or 16). */
  public static String text(byte[] bytes) {
    if (bytes.length == 4) {
      return (bytes[0] & 0xff) + "." + (bytes[1] & 0xff) + "." + (bytes[2] & 0xff) + "." + (bytes[3] & 0xff);
    }
    int[] groups = new int[8];
    for (int i = 0; i < 8; i++) {
      groups[i] = ((bytes[2 * i] & 0xff) << 8) | (bytes[2 * i + 1] & 0xff);
    }
    int bestStart = -1;
    int bestLength = 1; // RFC 5952: only runs of two or more zero groups are compressed
    for (int i = 0; i < 8; ) {
      int j = i;
      while (j < 8 && groups[j] == 0) {
        j++;
      }
      if (j - i > bestLength) {
        bestStart = i;
        bestLength = j - i;
      }
      i = j == i ? i + 1 : j;
    }
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      if (i == bestStart) {
        sb.append("::");
        i += bestLength - 1;
        continue;
      }
      if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
        sb.append(':');
      }
      sb.append(Integer.toHexString(groups[i]));
    }
    return sb.toString();
  }

  @Override
  public String toString() {
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
  }
}
