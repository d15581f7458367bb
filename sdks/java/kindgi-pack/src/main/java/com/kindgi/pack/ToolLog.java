package com.kindgi.pack;

import com.kindgi.pack.internal.PackLog;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * {@code ctx.log()}: the pack service's log for one call. Each record is a {@code pack.tool} line on stderr
 * carrying the call's ids ({@code tenantId}, {@code runId}, …), {@code toolId}, and the caller's
 * {@code traceId} with the call's {@code spanId}, so a handler's lines join the trace of the call that ran
 * them. Never put a secret in a message or a field. In a context built by hand (tests) records go to
 * {@code System.err} as plain lines.
 */
public final class ToolLog {
  private final @Nullable PackLog parent;
  private final Map<String, ?> bound;
  // Built on first use: most handlers never log, and every call would pay for the merge otherwise.
  private @Nullable PackLog child;

  ToolLog(@Nullable PackLog parent, Map<String, ?> bound) {
    this.parent = parent;
    this.bound = bound;
  }

  /** Records at {@code debug}. */
  public void debug(String message, Map<String, ?> fields) {
    write(PackLog.Level.debug, message, fields);
  }

  public void debug(String message) {
    debug(message, Map.of());
  }

  /** Records at {@code info}. */
  public void info(String message, Map<String, ?> fields) {
    write(PackLog.Level.info, message, fields);
  }

  public void info(String message) {
    info(message, Map.of());
  }

  /** Records at {@code warn}. */
  public void warn(String message, Map<String, ?> fields) {
    write(PackLog.Level.warn, message, fields);
  }

  public void warn(String message) {
    warn(message, Map.of());
  }

  /** Records at {@code error}. */
  public void error(String message, Map<String, ?> fields) {
    write(PackLog.Level.error, message, fields);
  }

  public void error(String message) {
    error(message, Map.of());
  }

  private void write(PackLog.Level level, String message, Map<String, ?> fields) {
    if (parent == null) {
      System.err.println(level.name() + " " + message + (fields.isEmpty() ? "" : " " + fields));
      return;
    }
    PackLog log;
    synchronized (this) {
      if (child == null) child = parent.child("pack.tool", java.util.Collections.unmodifiableMap(bound));
      log = child;
    }
    log.log(level, message, fields);
  }
}
