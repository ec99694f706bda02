package io.tcpopt.common.profile;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * HTTP/1.1 server-connection reuse, as F5's OneConnect profile: the far node keeps idle keep-alive
 * connections to a server and sends each new request of any client flow on an idle one instead of
 * opening a connection per flow. The built-in root is {@code oneconnect}.
 *
 * <pre>
 * http-reuse-profiles:
 *   web: { parent: oneconnect, source-mask: 255.255.255.0, max-reuse: 500 }
 * </pre>
 *
 * @param sourceMaskBits clients whose addresses agree in this many leading bits share server
 *     connections ({@code source-mask}; 0 = every client shares, 32 = only the same client). An
 *     IPv6 client shares with every client at 0, else only with itself.
 * @param maxSize idle connections the node's pool of this profile holds at most; a connection
 *     released beyond it is closed ({@code max-size})
 * @param maxAge a server connection older than this is not reused ({@code max-age})
 * @param maxReuse a server connection is closed after serving this many requests after its first
 *     ({@code max-reuse})
 * @param idleTimeout an idle pooled connection is closed after this; keep it below the servers'
 *     keep-alive timeout ({@code idle-timeout})
 */
public record HttpReuseProfile(String name, String parent, int sourceMaskBits, int maxSize, Duration maxAge, int maxReuse,
    Duration idleTimeout) {
  public static final String ROOT = "oneconnect";

  public static final ProfileKind<HttpReuseProfile> KIND =
      new ProfileKind<>(
          "http-reuse-profiles",
          "http-reuse",
          ROOT,
          List.of(
              ProfileField.ipv4Mask("source-mask"),
              ProfileField.integer("max-size", 1, 1_000_000),
              ProfileField.duration("max-age", Duration.ofSeconds(1), false),
              ProfileField.integer("max-reuse", 1, 1_000_000_000),
              ProfileField.duration("idle-timeout", Duration.ofMillis(100), false)),
          rootValues(),
          (name, parent, v, errors) ->
              new HttpReuseProfile(
                  name,
                  parent,
                  v.<Integer>get("source-mask"),
                  (int) (long) v.<Long>get("max-size"),
                  v.get("max-age"),
                  (int) (long) v.<Long>get("max-reuse"),
                  v.get("idle-timeout")));

  private static Map<String, Object> rootValues() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("source-mask", 0); // 0.0.0.0: every client may use every idle connection (F5's default)
    m.put("max-size", 10_000L); // F5's default
    m.put("max-age", Duration.ofDays(1)); // 86400s, F5's default
    m.put("max-reuse", 1_000L); // F5's default
    m.put("idle-timeout", Duration.ofSeconds(4)); // below Apache's 5s keep-alive timeout
    return m;
  }

  public HttpReuseProfile {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(maxAge, "maxAge");
    Objects.requireNonNull(idleTimeout, "idleTimeout");
    if (sourceMaskBits < 0 || sourceMaskBits > 32 || maxSize < 1 || maxReuse < 1) {
      throw new IllegalArgumentException("bad http-reuse profile " + name);
    }
  }

  /** The built-in {@code oneconnect} profile. */
  public static HttpReuseProfile oneconnect() {
    return KIND.builtIn();
  }

  /** The source part of a pool key: {@code client} with the bits past the source mask cleared. */
  public InetAddress maskSource(InetAddress client) {
    byte[] b = client.getAddress();
    int keep = client instanceof Inet4Address ? sourceMaskBits : sourceMaskBits == 0 ? 0 : 128;
    for (int i = 0; i < b.length; i++) {
      int bits = Math.max(0, Math.min(8, keep - 8 * i));
      b[i] &= (byte) (0xff00 >> bits);
    }
    try {
      return InetAddress.getByAddress(b);
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }

  /** {@code source-mask} as F5 writes it, e.g. {@code 255.255.255.0}. */
  public String sourceMask() {
    return ProfileField.dotted(sourceMaskBits);
  }
}
