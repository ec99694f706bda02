package io.tcpopt.common.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class CidrTest {
  private static String refused(String text) {
    return assertThrows(IllegalArgumentException.class, () -> Cidr.parse(text)).getMessage();
  }

  @Test
  void parsesAndPrintsCanonically() throws Exception {
    assertEquals("198.18.1.0/24", Cidr.parse(" 198.18.1.0/24 ").toString());
    assertEquals("198.18.1.5/32", Cidr.parse("198.18.1.5").toString());
    assertEquals("0.0.0.0/0", Cidr.parse("0.0.0.0/0").toString());
    assertEquals("2001:db8::/32", Cidr.parse("2001:0DB8:0:0::/32").toString());
    assertEquals("2001:db8:0:1::1/128", Cidr.parse("2001:db8:0:1:0:0:0:1").toString());
    assertEquals("::/0", Cidr.parse("::/0").toString());
    assertEquals("1::1:0:0:1:1/128", Cidr.parse("1:0:0:1:0:0:1:1").toString()); // first of two equal zero runs
    assertEquals("1:0:0:1::1/128", Cidr.parse("1:0:0:1:0:0:0:1").toString()); // the longest run
    assertTrue(Cidr.parse("198.18.0.0/15").contains(InetAddress.getByName("198.19.255.255")));
    assertFalse(Cidr.parse("198.18.0.0/15").contains(InetAddress.getByName("198.20.0.0")));
    assertFalse(Cidr.parse("::/0").contains(InetAddress.getByName("198.18.0.1")));
  }

  @Test
  void refusesWhatIsNotAPrefixLiteral() {
    assertEquals("bad CIDR \"198.18.1.0/33\": prefix length must be between 0 and 32", refused("198.18.1.0/33"));
    assertEquals("bad CIDR \"2001:db8::/129\": prefix length must be between 0 and 128", refused("2001:db8::/129"));
    assertEquals("bad CIDR \"198.18.1.5/24\": host bits set, did you mean 198.18.1.0/24?", refused("198.18.1.5/24"));
    assertEquals("bad CIDR \"2001:db8::1/64\": host bits set, did you mean 2001:db8::/64?", refused("2001:db8::1/64"));
    assertEquals("bad CIDR \"1.2.3.256/32\": bad IPv4 octet \"256\"", refused("1.2.3.256/32"));
    assertEquals("bad CIDR \"010.1.1.0/24\": bad IPv4 octet \"010\"", refused("010.1.1.0/24"));
    assertEquals("bad CIDR \"example.com/24\": not an IPv4 or IPv6 address", refused("example.com/24"));
    assertEquals("bad CIDR \"1.2.3/24\": not an IPv4 or IPv6 address", refused("1.2.3/24"));
    assertEquals("bad CIDR \"1:::2/64\": not an IPv4 or IPv6 address", refused("1:::2/64"));
    assertEquals("bad CIDR \"fe80::1%eth0/128\": not an IPv4 or IPv6 address", refused("fe80::1%eth0/128"));
    assertEquals(
        "bad CIDR \"::ffff:198.18.1.0/120\": IPv4-mapped IPv6 prefixes are not supported, write the IPv4 prefix",
        refused("::ffff:198.18.1.0/120"));
    assertEquals("bad CIDR \"198.18.1.0/\": prefix length must be between 0 and 32", refused("198.18.1.0/"));
  }

  @Test
  void singlePrefixListNeedsNoBrackets() {
    PolicyDocument d =
        PolicyDocument.parse(
            "prefix-lists: { ONE: 198.18.1.0/24 }\n"
                + "data-policy: { sequences: [ { seq: 1, match: { source-prefix-list: ONE }, action: drop } ] }\n",
            "one");
    assertEquals("198.18.1.0/24", d.prefixLists().get("ONE").get(0).toString());
    assertEquals(d, PolicyDocument.parse(d.toYaml(), "again"));
  }
}
