package io.tcpopt.common.policy;

import io.tcpopt.common.net.HostPort;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * An IPv4 or IPv6 prefix such as {@code 198.18.1.0/24} or {@code 2001:db8::/32}. A bare address is
 * a host prefix (/32 or /128).
 *
 * <p>Host bits must be zero: {@code 198.18.1.5/24} is refused (naming {@code 198.18.1.0/24}) rather
 * than silently normalized, because an operator who wrote it most likely meant either the host or a
 * different network, and a policy that silently widens a match is worse than one refused at apply.
 * Only literals are accepted, never host names, so parsing never touches DNS.
 */
public record Cidr(InetAddress network, int prefixLength) {
  private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
  private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]+");

  public Cidr {
    Objects.requireNonNull(network, "network");
    int bits = network.getAddress().length * 8;
    if (prefixLength < 0 || prefixLength > bits) {
      throw new IllegalArgumentException("prefix length " + prefixLength + " out of range for " + network);
    }
    if (!isNetwork(network.getAddress(), prefixLength)) {
      throw new IllegalArgumentException("host bits set in " + network.getHostAddress() + "/" + prefixLength);
    }
  }

  /**
   * Parses {@code ADDRESS[/LENGTH]}.
   *
   * @throws IllegalArgumentException with a reason fit for a {@link FieldError}, e.g. {@code bad CIDR
   *     "198.18.1.0/33": prefix length must be between 0 and 32}
   */
  public static Cidr parse(String text) {
    String s = text.trim();
    int slash = s.indexOf('/');
    String addressPart = slash < 0 ? s : s.substring(0, slash);
    boolean v6 = addressPart.indexOf(':') >= 0;
    InetAddress address;
    try {
      if (v6) {
        if (!IPV6.matcher(addressPart).matches()) {
          throw bad(text, "not an IPv4 or IPv6 address");
        }
        address = InetAddress.getByName(addressPart); // with a ':' the JDK parses a literal or fails, no DNS
      } else {
        address = InetAddress.getByAddress(ipv4(text, addressPart));
      }
    } catch (UnknownHostException e) {
      throw bad(text, "not an IPv4 or IPv6 address");
    }
    if (v6 && address instanceof Inet4Address) {
      throw bad(text, "IPv4-mapped IPv6 prefixes are not supported, write the IPv4 prefix");
    }
    int bits = address.getAddress().length * 8;
    int length = bits;
    if (slash >= 0) {
      String lengthPart = s.substring(slash + 1);
      if (!lengthPart.matches("\\d{1,3}") || Integer.parseInt(lengthPart) > bits) {
        throw bad(text, "prefix length must be between 0 and " + bits);
      }
      length = Integer.parseInt(lengthPart);
    }
    byte[] bytes = address.getAddress();
    if (!isNetwork(bytes, length)) {
      mask(bytes, length);
      throw bad(text, "host bits set, did you mean " + format(bytes) + "/" + length + "?");
    }
    return new Cidr(address, length);
  }

  /** Dotted quad, four decimal octets 0-255 without leading zeros (which some tools read as octal). */
  private static byte[] ipv4(String text, String s) {
    if (!IPV4.matcher(s).matches()) {
      throw bad(text, "not an IPv4 or IPv6 address");
    }
    String[] parts = s.split("\\.");
    byte[] out = new byte[4];
    for (int i = 0; i < 4; i++) {
      int octet = Integer.parseInt(parts[i]);
      if (octet > 255 || (parts[i].length() > 1 && parts[i].charAt(0) == '0')) {
        throw bad(text, "bad IPv4 octet \"" + parts[i] + "\"");
      }
      out[i] = (byte) octet;
    }
    return out;
  }

  private static IllegalArgumentException bad(String text, String why) {
    return new IllegalArgumentException("bad CIDR \"" + text + "\": " + why);
  }

  public boolean isIpv4() {
    return network instanceof Inet4Address;
  }

  /** Whether {@code address} (of the same family) lies inside this prefix. */
  public boolean contains(InetAddress address) {
    byte[] a = address.getAddress();
    byte[] n = network.getAddress();
    if (a.length != n.length) {
      return false;
    }
    mask(a, prefixLength);
    return Arrays.equals(a, n);
  }

  private static boolean isNetwork(byte[] bytes, int length) {
    byte[] copy = bytes.clone();
    mask(copy, length);
    return Arrays.equals(copy, bytes);
  }

  private static void mask(byte[] bytes, int length) {
    for (int i = 0; i < bytes.length; i++) {
      int keep = Math.max(0, Math.min(8, length - i * 8));
      bytes[i] &= (byte) (0xff << (8 - keep));
    }
  }

  /** Canonical text: dotted quad, or RFC 5952 compressed IPv6, then {@code /LENGTH}. */
  @Override
  public String toString() {
    return format(network.getAddress()) + "/" + prefixLength;
  }

  static String format(byte[] bytes) {
    return HostPort.text(bytes);
  }

}
