package io.tcpopt.servicenode.reuse;

/**
 * Why a flow with an HTTP reuse profile was carried as a plain relay over a server connection of
 * its own: the fixed label set of {@code tcpopt_http_reuse_fallbacks_total}.
 */
public enum Fallback {
  /** The client's bytes are not an HTTP/1.0 or HTTP/1.1 request (TLS, HTTP/2, another protocol). */
  NOT_HTTP1("not-http1"),
  /** A request or response whose framing is malformed or ambiguous. */
  MALFORMED("malformed"),
  /** A request asking to switch protocols ({@code Upgrade}), e.g. WebSocket. */
  UPGRADE("upgrade"),
  /** A {@code CONNECT} request: the connection becomes a tunnel. */
  CONNECT("connect"),
  /** No complete request head in time: perhaps a protocol where the server speaks first. */
  NO_REQUEST("no-request"),
  /** The client closed its side in the middle of a request. */
  INCOMPLETE("incomplete"),
  /** A response framed to be read until the server closes, or a 101 switching protocols. */
  UNTIL_CLOSE("until-close"),
  /** A final response arrived before the request was complete (e.g. 413): the rest is relayed as is. */
  EARLY_RESPONSE("early-response");

  private final String label;

  Fallback(String label) {
    this.label = label;
  }

  /** The metric label and the word shown in the flow table. */
  public String label() {
    return label;
  }
}
