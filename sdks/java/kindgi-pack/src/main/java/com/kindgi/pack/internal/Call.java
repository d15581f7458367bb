package com.kindgi.pack.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.kindgi.pack.Cancellation;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** One admitted call: what it runs, its cancellation and deadline, and its log records. */
final class Call {
  static final long DEFAULT_TIMEOUT_MS = 120_000;
  private static final Pattern TRACEPARENT = Pattern.compile("^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$");
  private static final SecureRandom RANDOM = new SecureRandom();

  final Cancellation cancellation = new Cancellation();
  final String target;
  final String id;
  private final Map<String, Object> ids = new LinkedHashMap<>();
  private final String traceId;
  private final String spanId;
  private final String parentSpanId;
  boolean done;
  boolean stopped;
  long stoppedAt;
  ScheduledFuture<?> timer;

  /**
   * A well-formed request's call. A valid W3C {@code traceparent} gives the trace id and the caller's span
   * ({@code parentSpanId}); a malformed one is ignored and a fresh trace starts. The call gets a span of its own.
   */
  Call(JsonNode message, String traceparent) {
    boolean tool = "invoke".equals(message.path("kind").asText());
    target = tool ? "tool" : "check";
    id = tool ? message.path("tool").path("id").asText() : message.path("check").path("id").asText();
    if (tool) {
      for (String name : new String[] {"tenantId", "projectId", "orgId", "runId", "requestId"}) {
        JsonNode v = message.path("ctx").path(name);
        if (v.isTextual() && !v.asText().isEmpty()) ids.put(name, v.asText());
      }
    }
    spanId = hex(8);
    Matcher m = traceparent == null ? null : TRACEPARENT.matcher(traceparent.trim().toLowerCase());
    boolean valid = m != null && m.matches() && !m.group(1).equals("ff") && !m.group(2).equals("0".repeat(32))
        && !m.group(3).equals("0".repeat(16));
    traceId = valid ? m.group(2) : hex(16);
    parentSpanId = valid ? m.group(3) : null;
  }

  /** What each record about this call's run carries: the caller's ids, then {@code traceId} and {@code spanId}. */
  Map<String, Object> logFields() {
    Map<String, Object> fields = new LinkedHashMap<>(ids);
    fields.put("traceId", traceId);
    fields.put("spanId", spanId);
    return fields;
  }

  private static String hex(int bytes) {
    byte[] b = new byte[bytes];
    RANDOM.nextBytes(b);
    return HexFormat.of().formatHex(b);
  }

  /** The deadline from {@code kindgi-timeout-ms}: a positive integer, else the default. */
  static long timeoutFrom(String raw) {
    if (raw == null || !raw.matches("^\\s*\\d+\\s*$")) return DEFAULT_TIMEOUT_MS;
    try {
      long value = Long.parseLong(raw.trim());
      return value > 0 ? Math.min(value, Integer.MAX_VALUE) : DEFAULT_TIMEOUT_MS;
    } catch (NumberFormatException e) {
      return Integer.MAX_VALUE;
    }
  }

  private String subjectKey() {
    return "tool".equals(target) ? "toolId" : "checkId";
  }

  /** The {@code call} record: info when ok, warn otherwise. */
  void record(PackServer.State s, String outcome, long ms) {
    PackLog.Level level = outcome.equals("ok") ? PackLog.Level.info : PackLog.Level.warn;
    if (!s.log.enabled(level)) return;
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("id", id);
    fields.put("outcome", outcome);
    fields.put("durationMs", ms);
    fields.put("target", target);
    fields.put(subjectKey(), id);
    fields.putAll(ids);
    fields.put("traceId", traceId);
    fields.put("spanId", spanId);
    if (parentSpanId != null) fields.put("parentSpanId", parentSpanId);
    fields.put("packId", s.catalog.packId);
    fields.put("artifactVersion", s.catalog.artifactVersion);
    s.log.record("call", level, target + " " + id + " " + outcome + " " + ms + "ms", fields);
  }

  /** {@code handler-finished-late}: the run ended after its call was answered or cancelled. */
  void logLate(PackServer.State s) {
    long afterMs = Math.round((System.nanoTime() - stoppedAt) / 1e6);
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("target", target);
    fields.put("id", id);
    fields.put(subjectKey(), id);
    fields.put("afterMs", afterMs);
    fields.put("traceId", traceId);
    fields.put("spanId", spanId);
    fields.put("packId", s.catalog.packId);
    fields.put("artifactVersion", s.catalog.artifactVersion);
    s.log.record("handler-finished-late", PackLog.Level.warn, target + " " + id + " finished " + afterMs + "ms after its call ended", fields);
  }
}
