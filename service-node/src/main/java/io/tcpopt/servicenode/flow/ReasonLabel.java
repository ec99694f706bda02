package io.tcpopt.servicenode.flow;

import java.util.regex.Pattern;

/**
 * A flow's reason as a metric label: the reason's words with every number, address and port in it
 * written as {@code N}, so that reasons differing only in which client, destination or limit they
 * name count as one series ("client N has N flows, its limit"). The flow table and the logs keep
 * the reason whole.
 */
final class ReasonLabel {
  /** A run of digits, dots, colons and hex letters holding at least one digit: a number, an IPv4 or IPv6 address, a port. */
  private static final Pattern NUMERIC = Pattern.compile("(?<![\\w])[0-9A-Fa-f.:]*[0-9][0-9A-Fa-f.:]*(?![\\w])");
  /** A label's length at most: an exception message stays a reason, not a log line. */
  static final int MAX_LENGTH = 80;

  private ReasonLabel() {}

  static String of(String reason) {
    String label = NUMERIC.matcher(reason).replaceAll("N");
    return label.length() <= MAX_LENGTH ? label : label.substring(0, MAX_LENGTH);
  }
}
