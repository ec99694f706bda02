package io.tcpopt.bench.chaos;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;

/**
 * Tries each {@code HOST:PORT} (IPv6 as {@code [ADDR]:PORT}) given: connects, sends 64 KiB, reads
 * the same number back, and prints one line {@code TARGET HOST:PORT result=R} where R is {@code
 * echo-ok} (every byte back, SHA-256 equal), {@code reset}, {@code eof} (closed before the bytes
 * came back), {@code mismatch} or {@code timeout}. Run inside the rogue's namespace; its protocol
 * with the test is its output, hence {@code System.out}.
 */
final class RogueProbe {
  private static final int BYTES = 64 * 1024;

  private RogueProbe() {}

  public static void main(String[] args) throws Exception {
    for (String target : args) {
      int colon = target.lastIndexOf(':');
      String host = target.substring(0, colon).replace("[", "").replace("]", "");
      System.out.println("TARGET " + target + " result=" + probe(new InetSocketAddress(host, Integer.parseInt(target.substring(colon + 1)))));
      System.out.flush();
    }
  }

  private static String probe(InetSocketAddress target) throws Exception {
    byte[] sent = new byte[BYTES];
    new Random(target.getPort()).nextBytes(sent);
    try (Socket s = new Socket()) {
      s.connect(target, 5_000);
      s.setSoTimeout(10_000);
      s.getOutputStream().write(sent);
      s.getOutputStream().flush();
      byte[] got = new byte[BYTES];
      InputStream in = s.getInputStream();
      int n = 0;
      while (n < BYTES) {
        int r = in.read(got, n, BYTES - n);
        if (r < 0) {
          return "eof";
        }
        n += r;
      }
      MessageDigest a = MessageDigest.getInstance("SHA-256");
      MessageDigest b = MessageDigest.getInstance("SHA-256");
      boolean same = Arrays.equals(a.digest(sent), b.digest(got));
      return same ? "echo-ok sha256=" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(got)) : "mismatch";
    } catch (SocketTimeoutException e) {
      return "timeout";
    } catch (IOException e) {
      return "reset";
    }
  }
}
