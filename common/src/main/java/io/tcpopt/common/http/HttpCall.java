package io.tcpopt.common.http;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.buffer.ByteBufUtil;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import javax.net.ssl.SSLSession;

/**
 * One request of a {@link BoundedHttpServer} and the response its handler gives. The request is
 * copied off the event loop's buffers when it arrives (it holds no {@code ByteBuf}), so a handler
 * may keep it as long as it runs. A HEAD request is answered with the headers of the GET response
 * and no body.
 */
public final class HttpCall {
  private final String method;
  private final String path;
  private final String rawQuery;
  private final HttpHeaders requestHeaders;
  private final byte[] body;
  private final SSLSession sslSession;
  private final InetSocketAddress remote;
  private final HttpHeaders responseHeaders = new DefaultHttpHeaders();
  private int status;
  private byte[] responseBody;

  private HttpCall(String method, String path, String rawQuery, HttpHeaders requestHeaders, byte[] body, SSLSession sslSession,
      InetSocketAddress remote) {
    this.method = method;
    this.path = path;
    this.rawQuery = rawQuery;
    this.requestHeaders = requestHeaders;
    this.body = body;
    this.sslSession = sslSession;
    this.remote = remote;
  }

  /** A call for {@code request}; throws {@link IllegalArgumentException} when its target is not a valid URI. */
  static HttpCall of(FullHttpRequest request, SSLSession sslSession, InetSocketAddress remote) {
    URI uri;
    try {
      uri = new URI(request.uri());
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("malformed request target: " + e.getReason());
    }
    String path = uri.getPath() == null || uri.getPath().isEmpty() ? "/" : uri.getPath();
    return new HttpCall(request.method().name(), path, uri.getRawQuery(), request.headers().copy(),
        ByteBufUtil.getBytes(request.content()), sslSession, remote);
  }

  /** GET, HEAD, POST... as the client sent it. */
  public String method() {
    return method;
  }

  /** The decoded path, "/" at least. */
  public String path() {
    return path;
  }

  /** The query as sent (still URL-encoded), or null. */
  public String rawQuery() {
    return rawQuery;
  }

  /** The first value of a request header, or null. */
  public String header(String name) {
    return requestHeaders.get(name);
  }

  /** Every value of a request header, in order. */
  public List<String> headers(String name) {
    return requestHeaders.getAll(name);
  }

  public byte[] body() {
    return body;
  }

  /** The TLS session of an HTTPS connection (with the client's certificates when it sent any), or null. */
  public SSLSession sslSession() {
    return sslSession;
  }

  public InetSocketAddress remoteAddress() {
    return remote;
  }

  public boolean isHead() {
    return method.equals("HEAD");
  }

  /** Sets a response header, replacing any value it had. */
  public HttpCall setHeader(String name, String value) {
    responseHeaders.set(name, value);
    return this;
  }

  /** Adds a response header value (e.g. a second Set-Cookie). */
  public HttpCall addHeader(String name, String value) {
    responseHeaders.add(name, value);
    return this;
  }

  /** Responds with {@code body} (not sent for HEAD); {@code contentType} may be null for an empty body. */
  public void respond(int status, String contentType, byte[] body) {
    if (this.status != 0) {
      throw new IllegalStateException("already responded " + this.status + " to " + method + " " + path);
    }
    if (contentType != null) {
      responseHeaders.set(HttpHeaderNames.CONTENT_TYPE, contentType);
    }
    this.status = status;
    this.responseBody = body;
  }

  public void respond(int status, String contentType, String body) {
    respond(status, contentType, body.getBytes(StandardCharsets.UTF_8));
  }

  boolean responded() {
    return status != 0;
  }

  /** The response to write; {@code keepAlive} says whether the connection stays open after it. */
  FullHttpResponse response(boolean keepAlive) {
    boolean withBody = !isHead() && responseBody.length > 0;
    FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status),
        withBody ? Unpooled.wrappedBuffer(responseBody) : Unpooled.EMPTY_BUFFER);
    response.headers().set(responseHeaders);
    response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, responseBody.length);
    response.headers().set(HttpHeaderNames.CONNECTION, keepAlive ? HttpHeaderValues.KEEP_ALIVE : HttpHeaderValues.CLOSE);
    return response;
  }
}
