package io.tcpopt.reduction;

/** {@link TestData} for the tests of other packages. */
public final class TestDataAccess {
  private TestDataAccess() {}

  public static byte[] edited(byte[] data, long seed, double fraction, int run) {
    return TestData.edited(data, seed, fraction, run);
  }

  public static byte[] text(long seed, int n) {
    return TestData.text(seed, n);
  }
}
