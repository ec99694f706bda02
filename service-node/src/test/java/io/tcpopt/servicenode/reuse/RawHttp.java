package io.tcpopt.servicenode.reuse;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** A minimal HTTP/1.1 response reader for tests, written independently of the code under test. */
public final class RawHttp {
  public record Response(int status, Map<String, String> headers, byte[] body) {
    public String header(String name) {
      return headers.get(name.toLowerCase(Locale.ROOT));
    }
  }

  private RawHttp() {}

  public static Response read(InputStream raw, boolean headRequest) throws IOException {
    DataInputStream in = new DataInputStream(raw);
    String status = line(in);
    if (status == null) {
      throw new IOException("connection closed before a response");
    }
    Map<String, String> headers = new LinkedHashMap<>();
    for (String l = line(in); l != null && !l.isEmpty(); l = line(in)) {
      int colon = l.indexOf(':');
      headers.put(l.substring(0, colon).trim().toLowerCase(Locale.ROOT), l.substring(colon + 1).trim());
    }
    int code = Integer.parseInt(status.substring(9, 12));
    byte[] body;
    if (headRequest || code == 204 || code == 304 || code / 100 == 1) {
      body = new byte[0];
    } else if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      while (true) {
        String size = line(in);
        int n = Integer.parseInt(size.split(";")[0].trim(), 16);
        if (n == 0) {
          while (!line(in).isEmpty()) {
            // trailers
          }
          break;
        }
        byte[] chunk = new byte[n];
        in.readFully(chunk);
        out.write(chunk);
        line(in);
      }
      body = out.toByteArray();
    } else if (headers.containsKey("content-length")) {
      body = new byte[Integer.parseInt(headers.get("content-length"))];
      in.readFully(body);
    } else {
      body = in.readAllBytes();
    }
    return new Response(code, headers, body);
  }

  private static String line(DataInputStream in) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    int c;
    while ((c = in.read()) >= 0) {
      if (c == '\n') {
        byte[] bytes = b.toByteArray();
        int len = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
        return new String(bytes, 0, len, StandardCharsets.ISO_8859_1);
      }
      b.write(c);
    }
    return b.size() == 0 ? null : b.toString(StandardCharsets.ISO_8859_1);
  }

  public static String sha256(byte[] b) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }
}
