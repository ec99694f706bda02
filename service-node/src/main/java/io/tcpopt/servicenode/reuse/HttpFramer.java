package io.tcpopt.servicenode.reuse;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;

/**
 * Finds where HTTP/1.x messages begin and end in a byte stream, one direction of one connection
 * (requests from a client, or responses from a server). It reads bytes and never changes them:
 * the caller forwards the very bytes it was given, sliced at the boundaries this framer reports.
 *
 * <p>Use: {@link #advance} consumes bytes of the current message and stops after the head's last
 * byte (phase {@code HEAD} → {@code BODY} or {@code DONE}) and after the message's last byte
 * ({@code DONE}); the caller acts on each change, then calls {@link #next} for the following
 * message. A response framer must be told which request method it answers ({@link
 * #expectResponseTo}): a response to HEAD has no body, a 2xx to CONNECT is a tunnel.
 *
 * <p>The start line is checked byte by byte as it arrives, so a stream that is not HTTP/1.x (a TLS
 * ClientHello, an HTTP/2 preface, a binary protocol) is known at its first wrong byte rather than
 * after a head's worth of bytes. Head and chunk-size lines are bounded.
 */
final class HttpFramer {
  enum Phase { HEAD, BODY, DONE, INVALID }

  /** How the body of the current message ends. */
  enum Body { NONE, LENGTH, CHUNKED, UNTIL_CLOSE }

  static final int DEFAULT_MAX_HEAD = 32 * 1024;
  private static final int MAX_CHUNK_LINE = 4096;
  private static final byte[] VERSION_PREFIX = {'H', 'T', 'T', 'P', '/', '1', '.'};

  // Start-line states.
  private static final int S_METHOD = 0, S_TARGET = 1, S_VERSION = 2, S_VERSION_DIGIT = 3, S_STATUS_SP = 4, S_STATUS = 5,
      S_STATUS_REST = 6, S_AFTER_VERSION = 7, S_DONE = 8;
  // Chunked-body states.
  private static final int C_SIZE = 0, C_EXT = 1, C_SIZE_LF = 2, C_DATA = 3, C_DATA_CR = 4, C_DATA_LF = 5, C_TRAILER = 6,
      C_TRAILER_LINE = 7, C_TRAILER_LF = 8, C_END_LF = 9;

  private final boolean request;
  private final int maxHead;
  private String requestMethod = "GET";

  private Phase phase = Phase.HEAD;
  private HttpHead head;
  private Body body = Body.NONE;
  private boolean ambiguous;
  private HttpFramingException error;

  // Head.
  private byte[] headBytes = new byte[512];
  private int headLength;
  private int lineLength; // bytes of the current line, CR excluded
  private boolean sawCr;
  private int startState;
  private int startCount; // bytes in the current start-line element

  // Body.
  private long remaining;
  private int chunkState;
  private long chunkSize;
  private int chunkDigits;
  private int chunkLine;

  private HttpFramer(boolean request, int maxHead) {
    this.request = request;
    this.maxHead = maxHead;
    resetHead();
  }

  static HttpFramer requests() {
    return new HttpFramer(true, DEFAULT_MAX_HEAD);
  }

  static HttpFramer responses() {
    return new HttpFramer(false, DEFAULT_MAX_HEAD);
  }

  static HttpFramer requests(int maxHead) {
    return new HttpFramer(true, maxHead);
  }

  Phase phase() {
    return phase;
  }

  /** The current message's head, once its phase is past {@code HEAD}. */
  HttpHead head() {
    return head;
  }

  Body body() {
    return body;
  }

  /** Why the phase is {@code INVALID}. */
  HttpFramingException error() {
    return error;
  }

  /**
   * Whether the current response's framing lets the connection carry another message: false when
   * it is read until close, or carries both Transfer-Encoding and Content-Length.
   */
  boolean framingReusable() {
    return body != Body.UNTIL_CLOSE && !ambiguous;
  }

  /** For a response framer: the method of the request the next response answers. */
  void expectResponseTo(String method) {
    this.requestMethod = method;
  }

  /** Starts the next message after {@code DONE}. */
  void next() {
    if (phase != Phase.DONE) {
      throw new IllegalStateException("message not done: " + phase);
    }
    phase = Phase.HEAD;
    head = null;
    body = Body.NONE;
    ambiguous = false;
    resetHead();
  }

  private void resetHead() {
    headLength = 0;
    lineLength = 0;
    sawCr = false;
    startState = request ? S_METHOD : S_VERSION;
    startCount = 0;
  }

  /**
   * Consumes bytes of the current message from {@code length} readable bytes of {@code buf} at
   * {@code index}, without moving its indices; stops at the end of the head and the end of the
   * message.
   *
   * @return how many of the bytes belong to the current message (0 when {@code DONE} or {@code INVALID})
   */
  int advance(ByteBuf buf, int index, int length) {
    switch (phase) {
      case HEAD:
        return head(buf, index, length);
      case BODY:
        return body(buf, index, length);
      default:
        return 0;
    }
  }

  private int invalid(HttpFramingException e, int consumed) {
    phase = Phase.INVALID;
    error = e;
    return consumed;
  }

  // ---- head ----------------------------------------------------------------------------------

  private int head(ByteBuf buf, int index, int length) {
    for (int i = 0; i < length; i++) {
      byte b = buf.getByte(index + i);
      if (headLength == maxHead) {
        return invalid(HttpFramingException.malformed("head larger than " + maxHead + " bytes"), i);
      }
      if (headLength == headBytes.length) {
        headBytes = Arrays.copyOf(headBytes, Math.min(maxHead, headBytes.length * 2));
      }
      headBytes[headLength++] = b;
      if (sawCr) {
        if (b != '\n') {
          return invalid(HttpFramingException.malformed("bare CR"), i + 1);
        }
        sawCr = false;
        if (startState != S_DONE) {
          if (lineLength == 0 && request && startState == S_METHOD && startCount == 0) {
            continue; // an empty line before the request line
          }
          if (!startLineComplete()) {
            return invalid(notHttp1(), i + 1);
          }
          startState = S_DONE;
        } else if (lineLength == 0) {
          headComplete();
          return i + 1;
        }
        lineLength = 0;
        continue;
      }
      if (b == '\r') {
        sawCr = true;
        continue;
      }
      if (b == '\n') {
        return invalid(startState == S_DONE ? HttpFramingException.malformed("bare LF") : notHttp1(), i + 1);
      }
      lineLength++;
      if (startState != S_DONE && !startLineByte(b)) {
        return invalid(notHttp1(), i + 1);
      }
    }
    return length;
  }

  private HttpFramingException notHttp1() {
    return HttpFramingException.notHttp1(request ? "not an HTTP/1.x request" : "not an HTTP/1.x response");
  }

  /** Checks one byte of the start line against the shape {@code METHOD SP TARGET SP HTTP/1.d} or {@code HTTP/1.d SP DDD ...}. */
  private boolean startLineByte(byte b) {
    int c = b & 0xff;
    switch (startState) {
      case S_METHOD:
        if (c == ' ' && startCount > 0) {
          startState = S_TARGET;
          startCount = 0;
          return true;
        }
        return HeadParser.isTokenChar(b) && ++startCount <= 32;
      case S_TARGET:
        if (c == ' ' && startCount > 0) {
          startState = S_VERSION;
          startCount = 0;
          return true;
        }
        startCount++;
        return c > 0x20 && c != 0x7f;
      case S_VERSION:
        if (b != VERSION_PREFIX[startCount]) {
          return false;
        }
        if (++startCount == VERSION_PREFIX.length) {
          startState = S_VERSION_DIGIT;
        }
        return true;
      case S_VERSION_DIGIT:
        if (c != '0' && c != '1') {
          return false;
        }
        startState = request ? S_AFTER_VERSION : S_STATUS_SP;
        return true;
      case S_STATUS_SP:
        startState = S_STATUS;
        startCount = 0;
        return c == ' ';
      case S_STATUS:
        if (c < '0' || c > '9') {
          return false;
        }
        if (++startCount == 3) {
          startState = S_STATUS_REST;
        }
        return true;
      case S_STATUS_REST:
        return c == '\t' || (c >= 0x20 && c != 0x7f);
      default: // S_AFTER_VERSION: the request line must end here
        return false;
    }
  }

  private boolean startLineComplete() {
    return startState == S_AFTER_VERSION || startState == S_STATUS_REST;
  }

  private void headComplete() {
    try {
      head = HeadParser.parse(headBytes, headLength, request, requestMethod);
    } catch (HttpFramingException e) {
      phase = Phase.INVALID;
      error = e;
      return;
    }
    if (headBytes.length > 4096) {
      headBytes = new byte[512]; // do not keep a large head's array for the life of the connection
    }
    body = request ? requestBody(head) : responseBody(head);
    remaining = head.contentLength();
    chunkState = C_SIZE;
    chunkSize = 0;
    chunkDigits = 0;
    chunkLine = 0;
    phase = body == Body.NONE || (body == Body.LENGTH && remaining == 0) ? Phase.DONE : Phase.BODY;
  }

  private static Body requestBody(HttpHead h) {
    if (h.chunked()) {
      return Body.CHUNKED;
    }
    return h.contentLength() > 0 ? Body.LENGTH : Body.NONE;
  }

  /** RFC 9112 §6.3, in order. */
  private Body responseBody(HttpHead h) {
    int s = h.status();
    if (s == 101 || (h.isConnect() && s >= 200 && s < 300)) {
      return Body.UNTIL_CLOSE; // the connection becomes a tunnel
    }
    if (h.interim() || "HEAD".equals(h.method()) || s == 204 || s == 304) {
      return Body.NONE;
    }
    if (h.transferEncoding()) {
      ambiguous = h.contentLength() >= 0;
      return h.chunked() ? Body.CHUNKED : Body.UNTIL_CLOSE;
    }
    return h.contentLength() >= 0 ? Body.LENGTH : Body.UNTIL_CLOSE;
  }

  // ---- body ----------------------------------------------------------------------------------

  private int body(ByteBuf buf, int index, int length) {
    switch (body) {
      case LENGTH: {
        int n = (int) Math.min(remaining, length);
        remaining -= n;
        if (remaining == 0) {
          phase = Phase.DONE;
        }
        return n;
      }
      case CHUNKED:
        return chunked(buf, index, length);
      default:
        return length; // until close
    }
  }

  private int chunked(ByteBuf buf, int index, int length) {
    int i = 0;
    while (i < length) {
      if (chunkState == C_DATA) {
        int n = (int) Math.min(remaining, length - i);
        remaining -= n;
        i += n;
        if (remaining == 0) {
          chunkState = C_DATA_CR;
        }
        continue;
      }
      byte b = buf.getByte(index + i++);
      int c = b & 0xff;
      switch (chunkState) {
        case C_SIZE: {
          int digit = Character.digit(c, 16);
          if (digit >= 0 && chunkDigits < 15) {
            chunkSize = chunkSize * 16 + digit;
            chunkDigits++;
          } else if (chunkDigits > 0 && (c == ';' || c == ' ' || c == '\t')) {
            chunkState = C_EXT;
            chunkLine = chunkDigits + 1;
          } else if (chunkDigits > 0 && c == '\r') {
            chunkState = C_SIZE_LF;
          } else {
            return invalid(HttpFramingException.malformed("bad chunk size"), i);
          }
          break;
        }
        case C_EXT:
          if (c == '\r') {
            chunkState = C_SIZE_LF;
          } else if (c == '\n' || (c < 0x20 && c != '\t') || c == 0x7f || ++chunkLine > MAX_CHUNK_LINE) {
            return invalid(HttpFramingException.malformed("bad chunk extension"), i);
          }
          break;
        case C_SIZE_LF:
          if (c != '\n') {
            return invalid(HttpFramingException.malformed("bare CR in a chunk size line"), i);
          }
          if (chunkSize == 0) {
            chunkState = C_TRAILER;
            chunkLine = 0;
          } else {
            chunkState = C_DATA;
            remaining = chunkSize;
          }
          break;
        case C_DATA_CR:
          if (c != '\r') {
            return invalid(HttpFramingException.malformed("chunk data longer than its size"), i);
          }
          chunkState = C_DATA_LF;
          break;
        case C_DATA_LF:
          if (c != '\n') {
            return invalid(HttpFramingException.malformed("bare CR after chunk data"), i);
          }
          chunkState = C_SIZE;
          chunkSize = 0;
          chunkDigits = 0;
          break;
        case C_TRAILER: // at the start of a trailer line
          if (c == '\r') {
            chunkState = C_END_LF;
          } else if (c == ' ' || c == '\t' || !HeadParser.isTokenChar(b)) {
            return invalid(HttpFramingException.malformed("bad trailer field"), i);
          } else {
            chunkState = C_TRAILER_LINE;
          }
          break;
        case C_TRAILER_LINE:
          if (++chunkLine > maxHead) {
            return invalid(HttpFramingException.malformed("trailer section larger than " + maxHead + " bytes"), i);
          }
          if (c == '\r') {
            chunkState = C_TRAILER_LF;
          } else if (c == '\n' || (c < 0x20 && c != '\t') || c == 0x7f) {
            return invalid(HttpFramingException.malformed("control character in a trailer field"), i);
          }
          break;
        case C_TRAILER_LF:
          if (c != '\n') {
            return invalid(HttpFramingException.malformed("bare CR in a trailer field"), i);
          }
          chunkState = C_TRAILER;
          break;
        default: // C_END_LF
          if (c != '\n') {
            return invalid(HttpFramingException.malformed("bare CR ending a chunked body"), i);
          }
          phase = Phase.DONE;
          return i;
      }
    }
    return length;
  }
}
