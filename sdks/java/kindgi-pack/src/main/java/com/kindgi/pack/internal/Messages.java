package com.kindgi.pack.internal;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** Protocol v2 messages: building replies and checking requests in the published order. */
public final class Messages {
  private Messages() {}

  public static Map<String, Object> error(String code, String message) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("v", 2);
    out.put("kind", "error");
    out.put("code", code);
    out.put("message", message);
    return out;
  }

  /** An error message carrying {@code toolId} or {@code checkId}, and {@code issues} when given. */
  public static Map<String, Object> error(String code, String message, boolean tool, String id,
      @Nullable List<Map<String, Object>> issues) {
    Map<String, Object> out = error(code, message);
    out.put(tool ? "toolId" : "checkId", id);
    if (issues != null) out.put("issues", issues);
    return out;
  }

  public static Map<String, Object> result(Object output) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("v", 2);
    out.put("kind", "result");
    out.put("output", output);
    return out;
  }

  public static Map<String, Object> checkResult(Map<String, Object> result) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("v", 2);
    out.put("kind", "check-result");
    out.put("result", result);
    return out;
  }

  /** A thrown value in its wire form: {@code {name, message, stack}}. */
  public static Map<String, Object> cause(Throwable t) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("name", t.getClass().getSimpleName());
    out.put("message", t.getMessage() == null ? "" : t.getMessage());
    StringWriter stack = new StringWriter();
    t.printStackTrace(new PrintWriter(stack));
    out.put("stack", stack.toString());
    return out;
  }

  /** {@code Name: message}, as error messages describe a throw. */
  public static String describe(Throwable t) {
    return t.getClass().getSimpleName() + ": " + (t.getMessage() == null ? "" : t.getMessage());
  }

  /** The error to answer a request with, or null when the request is well formed (the parser's order). */
  public static @Nullable Map<String, Object> check(JsonNode message) {
    if (message == null || !message.isObject()) return error("malformed-message", "Message must be a JSON object");
    JsonNode v = message.get("v");
    if (v == null || !v.isNumber() || v.doubleValue() != 2) {
      return error("unknown-protocol-version", "Expected protocol v2, got " + show(v));
    }
    JsonNode kind = message.get("kind");
    String k = kind != null && kind.isTextual() ? kind.textValue() : null;
    if ("invoke".equals(k)) {
      JsonNode tool = message.get("tool");
      if (tool == null || !tool.isObject() || !tool.path("id").isTextual() || tool.path("id").textValue().isEmpty()) {
        return error("malformed-message", "`tool.id` is required");
      }
      if (tool.has("version") && !tool.get("version").isTextual()) return error("malformed-message", "`tool.version` must be a string");
      JsonNode ctx = message.get("ctx");
      if (ctx == null || !ctx.isObject() || !ctx.path("tenantId").isTextual() || !ctx.path("runId").isTextual()) {
        return error("malformed-message", "`ctx` needs string `tenantId` and `runId`");
      }
      return null;
    }
    if ("check-invoke".equals(k)) {
      JsonNode check = message.get("check");
      if (check == null || !check.isObject() || !check.path("id").isTextual() || check.path("id").textValue().isEmpty()) {
        return error("malformed-message", "`check.id` is required");
      }
      JsonNode config = message.get("config");
      if (config == null || !config.isObject()) return error("malformed-message", "`config` must be an object");
      return null;
    }
    return error("unexpected-message-kind", "Unknown request kind " + show(kind));
  }

  private static String show(@Nullable JsonNode value) {
    if (value == null) return "undefined";
    String text = CanonicalJson.compact(value);
    return text.length() > 200 ? text.substring(0, 200) + "…" : text;
  }
}
