package com.kindgi.pack;

import com.kindgi.pack.internal.Json;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What a check evaluates: an agent turn as the runtime recorded it. {@link #raw()} is the trace as sent,
 * with any field a newer runtime adds.
 */
public final class RunTrace {
  private final Map<String, Object> raw;

  /** The trace as the runtime sends it, camelCase keys included. */
  public RunTrace(Map<String, ?> raw) {
    this.raw = Collections.unmodifiableMap(new LinkedHashMap<>(raw));
  }

  /** The final answer's text (a non-string answer as its JSON text), or null. */
  public @Nullable String output() {
    Object value = raw.get("output");
    if (value == null) return null;
    return value instanceof String s ? s : Json.write(value);
  }

  public @Nullable Object userInput() {
    return raw.get("userInput");
  }

  /** Each call a map with {@code toolId}, {@code toolName}, {@code arguments}. */
  public List<Object> toolCalls() {
    return list("toolCalls");
  }

  /** Each result a map with {@code toolCallId}, {@code output}. */
  public List<Object> toolResults() {
    return list("toolResults");
  }

  public List<Object> modelCalls() {
    return list("modelCalls");
  }

  /** {@code runtime} or {@code ci}, or null when the trace doesn't say. */
  public @Nullable String mode() {
    return raw.get("mode") instanceof String s ? s : null;
  }

  public @Nullable String runId() {
    return raw.get("runId") instanceof String s ? s : null;
  }

  public @Nullable String tenantId() {
    return raw.get("tenantId") instanceof String s ? s : null;
  }

  public Map<String, Object> raw() {
    return raw;
  }

  @SuppressWarnings("unchecked")
  private List<Object> list(String key) {
    return raw.get(key) instanceof List<?> l ? Collections.unmodifiableList((List<Object>) l) : List.of();
  }

  @Override
  public String toString() {
    return "RunTrace" + raw.keySet();
  }
}
