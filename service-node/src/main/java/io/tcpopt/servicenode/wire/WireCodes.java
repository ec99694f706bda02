package io.tcpopt.servicenode.wire;

/** Error codes carried by RST_STREAM (stream errors) and GOAWAY (connection errors). */
public final class WireCodes {
  // RST_STREAM codes
  public static final int CONNECTION_RESET = 1;
  public static final int CONNECT_REFUSED = 2;
  public static final int CONNECT_TIMEOUT = 3;
  public static final int PROTOCOL_ERROR = 4;
  public static final int FLOW_CONTROL_ERROR = 5;
  public static final int INTERNAL = 6;
  public static final int NO_ROUTE = 7;
  public static final int IDLE_TIMEOUT = 8;
  public static final int SHUTTING_DOWN = 9;
  public static final int REFUSED_STREAM = 10;

  // GOAWAY codes
  public static final int GOAWAY_NO_ERROR = 0;
  public static final int GOAWAY_PROTOCOL_ERROR = 1;
  public static final int GOAWAY_VERSION = 2;
  public static final int GOAWAY_FRAME_SIZE = 3;
  public static final int GOAWAY_FLOW_CONTROL = 4;
  public static final int GOAWAY_INTERNAL = 5;
  public static final int GOAWAY_SHUTTING_DOWN = 6;
  public static final int GOAWAY_KEEPALIVE_TIMEOUT = 7;
  public static final int GOAWAY_HANDSHAKE_TIMEOUT = 8;
  /** The certificate, the HELLO name or the dialled peer name disagree. */
  public static final int GOAWAY_IDENTITY_MISMATCH = 9;
  /** The HELLO names a node that is neither configured nor registered. */
  public static final int GOAWAY_UNKNOWN_PEER = 10;
  /** The HELLO claims a site other than the peer's configured or registered one. */
  public static final int GOAWAY_SITE_MISMATCH = 11;

  private WireCodes() {}

  public static String resetName(int code) {
    switch (code) {
      case CONNECTION_RESET: return "CONNECTION_RESET";
      case CONNECT_REFUSED: return "CONNECT_REFUSED";
      case CONNECT_TIMEOUT: return "CONNECT_TIMEOUT";
      case PROTOCOL_ERROR: return "PROTOCOL_ERROR";
      case FLOW_CONTROL_ERROR: return "FLOW_CONTROL_ERROR";
      case INTERNAL: return "INTERNAL";
      case NO_ROUTE: return "NO_ROUTE";
      case IDLE_TIMEOUT: return "IDLE_TIMEOUT";
      case SHUTTING_DOWN: return "SHUTTING_DOWN";
      case REFUSED_STREAM: return "REFUSED_STREAM";
      default: return "code " + code;
    }
  }

  public static String goAwayName(int code) {
    switch (code) {
      case GOAWAY_NO_ERROR: return "NO_ERROR";
      case GOAWAY_PROTOCOL_ERROR: return "PROTOCOL_ERROR";
      case GOAWAY_VERSION: return "VERSION";
      case GOAWAY_FRAME_SIZE: return "FRAME_SIZE";
      case GOAWAY_FLOW_CONTROL: return "FLOW_CONTROL";
      case GOAWAY_INTERNAL: return "INTERNAL";
      case GOAWAY_SHUTTING_DOWN: return "SHUTTING_DOWN";
      case GOAWAY_KEEPALIVE_TIMEOUT: return "KEEPALIVE_TIMEOUT";
      case GOAWAY_HANDSHAKE_TIMEOUT: return "HANDSHAKE_TIMEOUT";
      case GOAWAY_IDENTITY_MISMATCH: return "IDENTITY_MISMATCH";
      case GOAWAY_UNKNOWN_PEER: return "UNKNOWN_PEER";
      case GOAWAY_SITE_MISMATCH: return "SITE_MISMATCH";
      default: return "code " + code;
    }
  }
}
