package io.tcpopt.common.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigInteger;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Probes an {@link AddressTable} at and around every prefix boundary (where off-by-one mistakes
 * live) and at random addresses, comparing each row with {@link Cidr#contains}.
 */
class AddressTableTest {
  @Test
  void everyBoundaryAndItsNeighboursMapToTheRightSequences() throws Exception {
    Random r = new Random(7);
    for (int round = 0; round < 20; round++) {
      List<List<Cidr>> lists = new ArrayList<>();
      int listCount = 1 + r.nextInt(5);
      for (int l = 0; l < listCount; l++) {
        List<Cidr> cidrs = new ArrayList<>();
        int count = 1 + r.nextInt(round < 10 ? 20 : 400); // small tables and indexed large ones
        for (int i = 0; i < count; i++) {
          cidrs.add(randomCidr(r, round < 10));
        }
        lists.add(cidrs);
      }
      int sequences = 1 + r.nextInt(130);
      int[] required = new int[sequences];
      for (int s = 0; s < sequences; s++) {
        required[s] = r.nextInt(4) == 0 ? -1 : r.nextInt(listCount);
      }
      AddressTable table = new AddressTable(lists, required);
      for (List<Cidr> list : lists) {
        for (Cidr c : list) {
          BigInteger start = new BigInteger(1, c.network().getAddress());
          int bits = c.isIpv4() ? 32 : 128;
          BigInteger stop = start.add(BigInteger.ONE.shiftLeft(bits - c.prefixLength()));
          for (BigInteger probe : List.of(start, start.subtract(BigInteger.ONE), start.add(BigInteger.ONE), stop.subtract(BigInteger.ONE), stop)) {
            check(table, lists, required, probe, bits);
          }
          // The neighbourhood of the /16 block edges the IPv4 index cuts at.
          BigInteger block = start.shiftRight(16).shiftLeft(16);
          check(table, lists, required, block, bits);
          check(table, lists, required, block.subtract(BigInteger.ONE), bits);
          check(table, lists, required, block.add(BigInteger.ONE.shiftLeft(16)).subtract(BigInteger.ONE), bits);
        }
      }
      for (int i = 0; i < 2000; i++) {
        boolean v4 = r.nextBoolean();
        byte[] a = new byte[v4 ? 4 : 16];
        r.nextBytes(a);
        a[0] = (byte) (v4 ? 10 : 0x20);
        check(table, lists, required, new BigInteger(1, a), v4 ? 32 : 128);
      }
    }
  }

  /** Default routes ({@code /0}) only in small tables: one makes its list match everything. */
  private static Cidr randomCidr(Random r, boolean allowDefault) throws Exception {
    boolean v4 = r.nextInt(4) > 0;
    byte[] a = new byte[v4 ? 4 : 16];
    r.nextBytes(a);
    a[0] = (byte) (v4 ? 10 : 0x20);
    int bits = a.length * 8;
    // Short prefixes only in small tables too: a 10.0.0.0/8 in a list would cover all of them.
    int shortest = allowDefault ? 8 : 14;
    int length = allowDefault && r.nextInt(30) == 0 ? 0 : shortest + r.nextInt(bits - shortest + 1);
    BigInteger n = new BigInteger(1, a).shiftRight(bits - length).shiftLeft(bits - length);
    return new Cidr(InetAddress.getByAddress(bytes(n, bits)), length);
  }

  private static byte[] bytes(BigInteger v, int bits) {
    byte[] raw = v.toByteArray();
    byte[] out = new byte[bits / 8];
    for (int i = 0; i < out.length && i < raw.length; i++) {
      out[out.length - 1 - i] = raw[raw.length - 1 - i];
    }
    return out;
  }

  private static void check(AddressTable table, List<List<Cidr>> lists, int[] required, BigInteger value, int bits)
      throws Exception {
    if (value.signum() < 0 || value.bitLength() > bits) {
      return;
    }
    InetAddress address = InetAddress.getByAddress(bytes(value, bits));
    long[] expected = new long[(required.length + 63) / 64];
    boolean[] inList = new boolean[lists.size()];
    for (int l = 0; l < inList.length; l++) {
      inList[l] = lists.get(l).stream().anyMatch(c -> c.contains(address));
    }
    for (int s = 0; s < required.length; s++) {
      if (required[s] < 0 || inList[required[s]]) {
        expected[s / 64] |= 1L << s;
      }
    }
    byte[] b = address.getAddress();
    long[] got;
    if (bits == 32) {
      got = table.lookupV4(new BigInteger(1, b).intValue());
    } else {
      BigInteger v = new BigInteger(1, b);
      got = table.lookupV6(v.shiftRight(64).longValue(), v.longValue());
    }
    assertEquals(expected.length, got.length);
    assertArrayEquals(expected, got, () -> "address " + address.getHostAddress());
  }
}
