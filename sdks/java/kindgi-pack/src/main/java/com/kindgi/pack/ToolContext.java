package com.kindgi.pack;

import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Who a tool call is for and how it can stop. The runtime sets the ids from the run, never from the
 * input. {@link #secrets()} holds only the secrets the tool declares; {@link #toString()} shows their
 * names, never their values. {@link #env()} and {@link #config()} are reserved and empty today.
 */
public final class ToolContext {
  private final String tenantId;
  private final String runId;
  private final @Nullable String requestId;
  private final @Nullable String projectId;
  private final @Nullable String orgId;
  private final Map<String, String> env;
  private final Map<String, Object> secrets;
  private final Map<String, Object> config;
  private final Map<String, Object> settings;
  private final Cancellation cancellation;
  private final Map<String, Object> raw;
  private final ToolLog log;

  /**
   * A context built by hand (tests): tenant, run, request, project and org ids, then {@code env},
   * {@code secrets}, {@code config}, {@code settings} (block id → values) and the cancellation.
   */
  public ToolContext(
      String tenantId,
      String runId,
      @Nullable String requestId,
      @Nullable String projectId,
      @Nullable String orgId,
      Map<String, String> env,
      Map<String, ?> secrets,
      Map<String, ?> config,
      Map<String, ?> settings,
      Cancellation cancellation) {
    this(tenantId, runId, requestId, projectId, orgId, env, secrets, config, settings, cancellation, Map.of(), new ToolLog(null, Map.of()));
  }

  ToolContext(
      String tenantId,
      String runId,
      @Nullable String requestId,
      @Nullable String projectId,
      @Nullable String orgId,
      Map<String, String> env,
      Map<String, ?> secrets,
      Map<String, ?> config,
      Map<String, ?> settings,
      Cancellation cancellation,
      Map<String, ?> raw,
      ToolLog log) {
    this.tenantId = Objects.requireNonNull(tenantId, "tenantId");
    this.runId = Objects.requireNonNull(runId, "runId");
    this.requestId = requestId;
    this.projectId = projectId;
    this.orgId = orgId;
    this.env = Map.copyOf(env);
    this.secrets = copy(secrets);
    this.config = copy(config);
    this.settings = copy(settings);
    this.cancellation = Objects.requireNonNull(cancellation, "cancellation");
    this.raw = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(raw));
    this.log = Objects.requireNonNull(log, "log");
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> copy(Map<String, ?> map) {
    return java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>((Map<String, Object>) map));
  }

  /** A context with tenant {@code t-test}, run {@code run-test} and nothing else. */
  public static ToolContext forTest() {
    return new ToolContext("t-test", "run-test", null, null, null, Map.of(), Map.of(), Map.of(), Map.of(), new Cancellation());
  }

  public String tenantId() {
    return tenantId;
  }

  public String runId() {
    return runId;
  }

  /** This call's id (such as the model's tool-call id), or null. */
  public @Nullable String requestId() {
    return requestId;
  }

  public @Nullable String projectId() {
    return projectId;
  }

  public @Nullable String orgId() {
    return orgId;
  }

  /** Reserved: empty today. The process environment is {@link PackEnv}. */
  public Map<String, String> env() {
    return env;
  }

  /** The secrets the tool declares with {@code needsSpec}, resolved for this call's tenant. */
  public Map<String, Object> secrets() {
    return secrets;
  }

  /** Reserved: empty today. */
  public Map<String, Object> config() {
    return config;
  }

  /** Settings by block id, when the runtime sends them. */
  public Map<String, Object> settings() {
    return settings;
  }

  public Cancellation cancellation() {
    return cancellation;
  }

  /** The pack service's log for this call: records carry the call's ids and trace ids (see {@link ToolLog}). */
  public ToolLog log() {
    return log;
  }

  /** The context as the runtime sent it, without {@code secrets}, including fields a newer runtime adds. */
  public Map<String, Object> raw() {
    return raw;
  }

  @Override
  public String toString() {
    return "ToolContext{tenantId=" + tenantId + ", runId=" + runId + ", requestId=" + requestId
        + ", projectId=" + projectId + ", orgId=" + orgId + ", secrets=" + new TreeSet<>(secrets.keySet()) + "}";
  }
}
