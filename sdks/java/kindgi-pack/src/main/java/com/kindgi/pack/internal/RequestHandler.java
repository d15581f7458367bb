package com.kindgi.pack.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One connection's requests, in the published order: 404, 405, 401, 503, 415, then the body (413 past
 * 10 MiB, read to its end), then the call under its deadline and the caller's connection. All state is
 * touched on the connection's event loop only.
 */
final class RequestHandler extends ChannelInboundHandlerAdapter {
  static final int MAX_BODY_BYTES = 10 * 1024 * 1024;
  private static final Map<String, String> ROUTES = Map.of("/v1/invoke", "POST", "/v1/info", "GET", "/healthz", "GET", "/readyz", "GET");

  private enum Mode { IDLE, DISCARD, READ, BUSY }

  private final PackServer.State s;
  private Mode mode = Mode.IDLE;
  private final ArrayDeque<Object> queued = new ArrayDeque<>();
  private boolean keepAlive;
  private HttpRequest request;
  private ByteArrayOutputStream body;
  private long bodyBytes;
  private long admittedAt;
  private Call call;

  RequestHandler(PackServer.State state) {
    this.s = state;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (mode == Mode.BUSY) {
      queued.add(msg);
      return;
    }
    handle(ctx, msg);
  }

  private void handle(ChannelHandlerContext ctx, Object msg) {
    try {
      if (msg instanceof HttpRequest req) start(ctx, req);
      if (msg instanceof HttpContent content) {
        if (mode == Mode.READ) append(content.content());
        if (content instanceof LastHttpContent) {
          if (mode == Mode.READ) finishBody(ctx);
          else if (mode == Mode.DISCARD) mode = Mode.IDLE;
        }
      }
    } catch (RuntimeException e) {
      s.log.log(PackLog.Level.error, "The pack service failed while handling a call: " + e.getMessage(), Map.of("event", "service-error"));
      if (mode == Mode.READ) s.inFlight.decrementAndGet();
      mode = Mode.DISCARD;
      send(ctx, 500, error(e.getMessage() == null ? e.toString() : e.getMessage()), Map.of());
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  private void start(ChannelHandlerContext ctx, HttpRequest req) {
    request = req;
    keepAlive = HttpUtil.isKeepAlive(req);
    mode = Mode.DISCARD;
    if (req.decoderResult().isFailure()) {
      keepAlive = false;
      send(ctx, 400, error("Bad request"), Map.of());
      return;
    }
    String uri = req.uri();
    int q = uri.indexOf('?');
    String path = q >= 0 ? uri.substring(0, q) : uri;
    String method = ROUTES.get(path);
    if (method == null) {
      send(ctx, 404, error("No route " + uri), Map.of());
    } else if (!req.method().name().equals(method)) {
      send(ctx, 405, error("Use " + method), Map.of());
    } else if (path.equals("/healthz")) {
      send(ctx, 200, "{\"status\":\"ok\"}", Map.of());
    } else if (path.equals("/readyz")) {
      if (!unavailable(ctx, false)) send(ctx, 200, "{\"status\":\"ready\"}", Map.of());
    } else if (!tokenMatches(req.headers().get(PackHeaders.TOKEN))) {
      send(ctx, 401, error("Bad pack token"), Map.of());
    } else if (path.equals("/v1/info")) {
      send(ctx, 200, Json.write(s.catalog.info(s.missingEnv)), Map.of());
    } else {
      if (unavailable(ctx, true)) return;
      String contentType = req.headers().get(HttpHeaderNames.CONTENT_TYPE);
      if (contentType == null || !contentType.toLowerCase().contains("application/json")) {
        send(ctx, 415, error("Content-Type must be application/json"), Map.of());
        return;
      }
      admittedAt = System.nanoTime();
      s.inFlight.incrementAndGet();
      body = new ByteArrayOutputStream();
      bodyBytes = 0;
      mode = Mode.READ;
    }
  }

  private boolean unavailable(ChannelHandlerContext ctx, boolean checkLoad) {
    Map<String, String> retry = Map.of("retry-after", "1");
    if (s.draining) {
      send(ctx, 503, error("draining"), retry);
    } else if (s.strictEnv && !s.missingEnv.isEmpty()) {
      Map<String, Object> b = new LinkedHashMap<>();
      b.put("error", "missing env");
      b.put("missingEnv", s.missingEnv);
      send(ctx, 503, Json.write(b), retry);
    } else if (!s.ready) {
      send(ctx, 503, error("not ready"), retry);
    } else if (checkLoad && s.inFlight.get() >= s.maxConcurrency) {
      send(ctx, 503, error("overloaded"), retry);
    } else {
      return false;
    }
    return true;
  }

  private boolean tokenMatches(String sent) {
    byte[] expected = s.token.getBytes(StandardCharsets.UTF_8);
    if (sent == null) return false;
    byte[] given = sent.getBytes(StandardCharsets.UTF_8);
    if (given.length != expected.length) {
      MessageDigest.isEqual(expected, expected);
      return false;
    }
    return MessageDigest.isEqual(given, expected);
  }

  private void append(ByteBuf content) {
    int n = content.readableBytes();
    bodyBytes += n;
    if (bodyBytes <= MAX_BODY_BYTES) {
      byte[] bytes = new byte[n];
      content.readBytes(bytes);
      body.write(bytes, 0, n);
    } else {
      body.reset();
    }
  }

  private long elapsedMs() {
    return Math.round((System.nanoTime() - admittedAt) / 1e6);
  }

  private void finishBody(ChannelHandlerContext ctx) {
    mode = Mode.DISCARD;
    if (bodyBytes > MAX_BODY_BYTES) {
      body = null;
      s.inFlight.decrementAndGet();
      send(ctx, 413, error("Request body too large"), Map.of());
      mode = Mode.IDLE;
      return;
    }
    String text = body.toString(StandardCharsets.UTF_8);
    body = null;
    JsonNode message;
    try {
      message = Json.parse(text);
    } catch (Exception e) {
      s.inFlight.decrementAndGet();
      reply(ctx, Messages.error("malformed-message", "Request body is not valid JSON"));
      mode = Mode.IDLE;
      return;
    }
    Map<String, Object> refused = Messages.check(message);
    if (refused != null) {
      s.inFlight.decrementAndGet();
      reply(ctx, refused);
      mode = Mode.IDLE;
      return;
    }
    startCall(ctx, message);
  }

  private void startCall(ChannelHandlerContext ctx, JsonNode message) {
    Call c = new Call(message, request.headers().get("traceparent"));
    call = c;
    mode = Mode.BUSY;
    long timeout = Call.timeoutFrom(request.headers().get(PackHeaders.TIMEOUT_MS));
    c.timer = s.timers.schedule(() -> ctx.executor().execute(() -> stop(ctx, c, true)), timeout, TimeUnit.MILLISECONDS);
    s.handlers.execute(() -> {
      c.cancellation.bindThread(Thread.currentThread());
      Map<String, Object> outcome;
      try {
        outcome = s.runner.run(message, c.cancellation, c.logFields());
      } finally {
        c.cancellation.bindThread(null);
        Thread.interrupted();
      }
      Map<String, Object> result = outcome;
      ctx.executor().execute(() -> finish(ctx, c, result));
    });
    if (!ctx.channel().isActive()) stop(ctx, c, false);
  }

  private void finish(ChannelHandlerContext ctx, Call c, Map<String, Object> message) {
    if (c.stopped) {
      c.logLate(s);
      return;
    }
    c.done = true;
    c.timer.cancel(false);
    // The slot is freed before the reply leaves: another event loop may read the caller's next call (on
    // another connection) the moment this reply arrives, and must not find this call still counted.
    s.inFlight.decrementAndGet();
    reply(ctx, message);
    c.record(s, "error".equals(message.get("kind")) ? (String) message.get("code") : "ok", elapsedMs());
    endCall(ctx);
  }

  /** The deadline passed ({@code deadline}) or the caller went away: the run goes on, its late finish is logged. */
  private void stop(ChannelHandlerContext ctx, Call c, boolean deadline) {
    if (c.done || c.stopped) return;
    c.stopped = true;
    c.stoppedAt = System.nanoTime();
    c.timer.cancel(false);
    String code = deadline ? "deadline-exceeded" : "cancelled";
    String text = "`" + c.id + "` " + (deadline ? "passed its deadline" : "was cancelled");
    c.cancellation.cancel(code);
    s.inFlight.decrementAndGet();
    if (deadline) {
      Map<String, Object> message = Messages.error(code, text);
      message.put("tool".equals(c.target) ? "toolId" : "checkId", c.id);
      reply(ctx, message);
    }
    c.record(s, code, elapsedMs());
    endCall(ctx);
  }

  /** The call's slot was already freed (before its reply was sent); this serves the next queued request. */
  private void endCall(ChannelHandlerContext ctx) {
    call = null;
    mode = Mode.IDLE;
    while (mode != Mode.BUSY && !queued.isEmpty() && ctx.channel().isActive()) handle(ctx, queued.poll());
  }

  private void reply(ChannelHandlerContext ctx, Map<String, Object> message) {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put(PackHeaders.DURATION_MS, Long.toString(elapsedMs()));
    headers.put(PackHeaders.ARTIFACT_VERSION, s.catalog.artifactVersion);
    send(ctx, 200, Json.write(message), headers);
  }

  private static String error(String text) {
    return Json.write(Map.of("error", text));
  }

  private void send(ChannelHandlerContext ctx, int status, String text, Map<String, String> headers) {
    if (!ctx.channel().isActive()) return;
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status), Unpooled.wrappedBuffer(bytes));
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json; charset=utf-8");
    response.headers().set(HttpHeaderNames.CONTENT_LENGTH, bytes.length);
    headers.forEach((k, v) -> response.headers().set(k, v));
    boolean close = !keepAlive;
    if (close) response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    else if (request != null && request.protocolVersion().equals(HttpVersion.HTTP_1_0)) response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
    var future = ctx.writeAndFlush(response);
    if (close) future.addListener(ChannelFutureListener.CLOSE);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    if (mode == Mode.READ) {
      s.inFlight.decrementAndGet();
      mode = Mode.IDLE;
    }
    if (call != null) stop(ctx, call, false);
    while (!queued.isEmpty()) ReferenceCountUtil.release(queued.poll());
    super.channelInactive(ctx);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close();
  }
}
