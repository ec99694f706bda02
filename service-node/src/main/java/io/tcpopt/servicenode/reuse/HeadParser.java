package io.tcpopt.servicenode.reuse;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Parses one complete message head (start line and header fields, CRLF line ends) into the
 * {@link HttpHead} facts that frame the message. Strict where a proxy that shares connections must
 * be (RFC 9112 §6.3, §11.2): conflicting or malformed framing headers, obsolete line folding,
 * whitespace before a colon and control characters are refused rather than guessed at, so that
 * this parser and the server can never disagree about where a request ends.
 */
final class HeadParser {
  static final int MAX_HEADERS = 128;

  private HeadParser() {}

  /**
   * @param head the head's bytes up to and including the empty line
   * @param requestMethod for a response, the method of the request it answers
   */
  static HttpHead parse(byte[] head, int length, boolean request, String requestMethod) throws HttpFramingException {
    int pos = 0;
    if (request) {
      while (pos + 1 < length && head[pos] == '\r' && head[pos + 1] == '\n') {
        pos += 2; // RFC 9112 §2.2: empty lines before a request line are ignored
      }
    }
    int eol = lineEnd(head, pos, length);
    String startLine = new String(head, pos, eol - pos, StandardCharsets.ISO_8859_1);
    String method;
    int status = 0;
    int minor;
    if (request) {
      int sp1 = startLine.indexOf(' ');
      int sp2 = startLine.indexOf(' ', sp1 + 1);
      if (sp1 <= 0 || sp2 < 0 || startLine.indexOf(' ', sp2 + 1) >= 0 || sp2 == sp1 + 1) {
        throw HttpFramingException.malformed("bad request line");
      }
      method = startLine.substring(0, sp1);
      minor = version(startLine.substring(sp2 + 1));
    } else {
      method = requestMethod;
      if (startLine.length() < 12 || startLine.charAt(8) != ' ' || (startLine.length() > 12 && startLine.charAt(12) != ' ')) {
        throw HttpFramingException.malformed("bad status line");
      }
      minor = version(startLine.substring(0, 8));
      String code = startLine.substring(9, 12);
      if (!code.chars().allMatch(c -> c >= '0' && c <= '9')) {
        throw HttpFramingException.malformed("bad status code");
      }
      status = Integer.parseInt(code);
      if (status < 100) {
        throw HttpFramingException.malformed("bad status code " + status);
      }
    }

    long contentLength = -1;
    boolean transferEncoding = false;
    boolean chunked = false;
    boolean chunkedNotLast = false;
    boolean close = false;
    boolean keepAlive = false;
    boolean upgrade = false;
    int headers = 0;
    pos = eol + 2;
    while (true) {
      eol = lineEnd(head, pos, length);
      if (eol == pos) {
        break; // the empty line ending the head
      }
      if (++headers > MAX_HEADERS) {
        throw HttpFramingException.malformed("more than " + MAX_HEADERS + " header fields");
      }
      if (head[pos] == ' ' || head[pos] == '\t') {
        throw HttpFramingException.malformed("obsolete line folding");
      }
      int colon = pos;
      while (colon < eol && head[colon] != ':') {
        if (!isTokenChar(head[colon])) {
          throw HttpFramingException.malformed("bad header field name");
        }
        colon++;
      }
      if (colon == pos || colon == eol) {
        throw HttpFramingException.malformed("bad header field");
      }
      for (int i = colon + 1; i < eol; i++) {
        int c = head[i] & 0xff;
        if ((c < 0x20 && c != '\t') || c == 0x7f) {
          throw HttpFramingException.malformed("control character in a header field value");
        }
      }
      String name = new String(head, pos, colon - pos, StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
      String value = new String(head, colon + 1, eol - colon - 1, StandardCharsets.ISO_8859_1).trim();
      switch (name) {
        case "content-length":
          contentLength = contentLength(value, contentLength);
          break;
        case "transfer-encoding":
          transferEncoding = true;
          for (String coding : value.toLowerCase(Locale.ROOT).split(",")) {
            String c = coding.trim();
            if (c.isEmpty()) {
              continue;
            }
            if (chunked) {
              chunkedNotLast = true; // something after chunked, or chunked twice
            }
            chunked = c.equals("chunked");
          }
          break;
        case "connection":
          for (String token : value.toLowerCase(Locale.ROOT).split(",")) {
            switch (token.trim()) {
              case "close": close = true; break;
              case "keep-alive": keepAlive = true; break;
              case "upgrade": upgrade = true; break;
              default: break;
            }
          }
          break;
        case "upgrade":
          upgrade = true;
          break;
        default:
          break;
      }
      pos = eol + 2;
    }
    if (transferEncoding) {
      if (chunkedNotLast) {
        chunked = false;
      }
      if (request && (!chunked || contentLength >= 0)) {
        // RFC 9112 §6.1: a server answers these with 400; §6.3: both is a smuggling attempt.
        throw HttpFramingException.malformed(chunked ? "both Transfer-Encoding and Content-Length" : "a request Transfer-Encoding other than chunked");
      }
      if (request && minor == 0) {
        throw HttpFramingException.malformed("Transfer-Encoding in an HTTP/1.0 request");
      }
    }
    return new HttpHead(request, method, status, minor, contentLength, transferEncoding, chunked, close, keepAlive, upgrade);
  }

  /** The index of the CR ending the line that starts at {@code from}; lines end in CRLF only. */
  private static int lineEnd(byte[] b, int from, int length) throws HttpFramingException {
    for (int i = from; i < length; i++) {
      if (b[i] == '\r') {
        if (i + 1 >= length || b[i + 1] != '\n') {
          throw HttpFramingException.malformed("bare CR");
        }
        return i;
      }
      if (b[i] == '\n') {
        throw HttpFramingException.malformed("bare LF");
      }
    }
    throw HttpFramingException.malformed("unterminated line");
  }

  private static int version(String v) throws HttpFramingException {
    if (v.equals("HTTP/1.1")) {
      return 1;
    }
    if (v.equals("HTTP/1.0")) {
      return 0;
    }
    throw HttpFramingException.notHttp1("not HTTP/1.0 or HTTP/1.1: " + (v.length() > 16 ? v.substring(0, 16) : v));
  }

  private static long contentLength(String value, long previous) throws HttpFramingException {
    long result = previous;
    for (String part : value.split(",", -1)) {
      String p = part.trim();
      if (p.isEmpty() || p.length() > 18 || !p.chars().allMatch(c -> c >= '0' && c <= '9')) {
        throw HttpFramingException.malformed("bad Content-Length");
      }
      long n = Long.parseLong(p);
      if (result >= 0 && result != n) {
        throw HttpFramingException.malformed("conflicting Content-Length values");
      }
      result = n;
    }
    return result;
  }

  /** RFC 9110 tchar. */
  static boolean isTokenChar(byte b) {
    int c = b & 0xff;
    if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
      return true;
    }
    return "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
  }
}
