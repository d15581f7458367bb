package com.kindgi.pack;

import java.util.Map;
import org.jspecify.annotations.Nullable;

/** Builds the {@link ToolContext} the pack service hands a handler (with the wire ctx as {@code raw}). */
public final class Contexts {
  private Contexts() {}

  public static ToolContext create(String tenantId, String runId, @Nullable String requestId, @Nullable String projectId,
      @Nullable String orgId, Map<String, String> env, Map<String, ?> secrets, Map<String, ?> config, Map<String, ?> settings,
      Cancellation cancellation, Map<String, ?> raw) {
    return new ToolContext(tenantId, runId, requestId, projectId, orgId, env, secrets, config, settings, cancellation, raw);
  }
}
