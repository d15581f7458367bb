package com.kindgi.pack;

import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** A check's verdict: passed, or failed with the reason the violation reports. */
public final class CheckResult {
  private static final CheckResult PASS = new CheckResult(true, null, Map.of());

  private final boolean passed;
  private final @Nullable String reason;
  private final Map<String, Object> attributes;

  private CheckResult(boolean passed, @Nullable String reason, Map<String, Object> attributes) {
    this.passed = passed;
    this.reason = reason;
    this.attributes = attributes;
  }

  /** The rule holds. */
  public static CheckResult pass() {
    return PASS;
  }

  /** The rule is broken; {@code reason} says what was wrong. */
  public static CheckResult fail(String reason) {
    return new CheckResult(false, reason, Map.of());
  }

  /** This result with {@code attributes} (sent as the result's {@code attributes}). */
  public CheckResult withAttributes(Map<String, ?> attributes) {
    return new CheckResult(passed, reason, java.util.Collections.unmodifiableMap(new LinkedHashMap<>(attributes)));
  }

  public boolean passed() {
    return passed;
  }

  public @Nullable String reason() {
    return reason;
  }

  public Map<String, Object> attributes() {
    return attributes;
  }

  /** The wire form: {@code {passed, reason?, attributes?}}. */
  public Map<String, Object> toWire() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("passed", passed);
    if (reason != null) out.put("reason", reason);
    if (!attributes.isEmpty()) out.put("attributes", attributes);
    return out;
  }

  @Override
  public String toString() {
    return passed ? "CheckResult{passed}" : "CheckResult{failed: " + reason + "}";
  }
}
