package com.kindgi.pack;

import com.kindgi.pack.internal.PackLog;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Builds the {@link ToolContext} the pack service hands a handler (with the wire ctx as {@code raw}, and a
 * {@link ToolLog} under {@code log} that adds {@code logFields} to each record).
 */
public final class Contexts {
  private Contexts() {}

  public static ToolContext create(String tenantId, String runId, @Nullable String requestId, @Nullable String projectId,
      @Nullable String orgId, Map<String, String> env, Map<String, ?> secrets, Map<String, ?> config, Map<String, ?> settings,
      Cancellation cancellation, Map<String, ?> raw, PackLog log, Map<String, ?> logFields) {
    return new ToolContext(tenantId, runId, requestId, projectId, orgId, env, secrets, config, settings, cancellation, raw,
        new ToolLog(log, logFields));
  }
}
