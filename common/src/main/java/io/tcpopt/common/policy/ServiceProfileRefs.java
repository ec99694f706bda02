package io.tcpopt.common.policy;

/**
 * The application profiles an optimize action names, each optional (null = not used): {@code
 * http-reuse}, {@code client-ssl}, {@code server-ssl}.
 */
public record ServiceProfileRefs(String httpReuse, String clientSsl, String serverSsl) {
  public static final ServiceProfileRefs NONE = new ServiceProfileRefs(null, null, null);
}
