package com.kindgi.pack;

import com.kindgi.pack.internal.Futures;
import com.kindgi.pack.internal.SchemaDeriver;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * A guardrail: a check over an agent turn's trace plus the action taken when it fails. A pack declares
 * each as a {@code public static final Guardrail<C>} field of a class in a {@code guardrails} package.
 *
 * @param <C> the config type the check runs with
 */
public final class Guardrail<C> {
  /** {@code (config, trace) -> CheckResult}. */
  @FunctionalInterface
  public interface Check<C> {
    CheckResult check(C config, RunTrace trace) throws Exception;
  }

  /** A check built on futures. */
  @FunctionalInterface
  public interface AsyncCheck<C> {
    CompletionStage<CheckResult> check(C config, RunTrace trace) throws Exception;
  }

  /** The actions {@code onViolation} takes. */
  public static final Set<String> ACTIONS = Set.of("halt", "retry", "escalate", "log-only", "compensate");
  /** The severities. */
  public static final Set<String> SEVERITIES = Set.of("info", "warn", "error", "critical");
  private static final Set<String> SETTABLE = Set.of("config", "scope", "sandbox", "limits", "network");

  private final String id;
  private final @Nullable String name;
  private final Map<String, Object> action;
  private final @Nullable String severity;
  private final Object config;
  private final @Nullable String checkId;
  private final String kind;
  private final Map<String, Object> extras;
  private final AsyncCheck<C> check;

  private Guardrail(Builder<C> b, AsyncCheck<C> check) {
    this.id = b.id;
    this.name = b.name;
    this.action = Objects.requireNonNull(b.action);
    this.severity = b.severity;
    this.config = b.config;
    this.checkId = b.checkId;
    this.kind = b.kind;
    this.extras = Collections.unmodifiableMap(new LinkedHashMap<>(b.extras));
    this.check = check;
  }

  /** Starts a guardrail: {@code <pack-id>.<guardrail-name>}, kebab-case. */
  public static Builder<Map<String, Object>> define(String id) {
    return new Builder<>(id);
  }

  /** Runs the check with {@code config} as given (no schema check, no defaults), awaiting an async check. */
  public CheckResult evaluate(C config, RunTrace trace) throws Exception {
    CheckResult result = Futures.await(check.check(config, trace));
    if (result == null) throw new IllegalStateException("Check \"" + checkId() + "\" returned no CheckResult");
    return result;
  }

  public String id() {
    return id;
  }

  public @Nullable String name() {
    return name;
  }

  /** {@code {"on-violation": …, …}}. */
  public Map<String, Object> action() {
    return action;
  }

  public @Nullable String severity() {
    return severity;
  }

  /** The check's id: the one given with {@code checkId(…)}, else the guardrail's id. */
  public String checkId() {
    return checkId != null ? checkId : id;
  }

  public String kind() {
    return kind;
  }

  /** Fields given with {@code set(…)}: {@code config}, {@code scope}, {@code sandbox}, {@code limits}, {@code network}. */
  public Map<String, Object> extras() {
    return extras;
  }

  /** The class the config binds to, or null when the config is a schema map (the check gets a Map). */
  public @Nullable Class<?> configType() {
    return config instanceof Class<?> c ? c : null;
  }

  /** The config's JSON Schema, or null when the guardrail names neither a config type nor a schema. */
  @SuppressWarnings("unchecked")
  public @Nullable Map<String, Object> configSchema() {
    if (config instanceof Class<?> c) return SchemaDeriver.derive(c, "Guardrail \"" + id + "\" config");
    return (Map<String, Object>) config;
  }

  @Override
  public String toString() {
    return "Guardrail{" + id + "}";
  }

  /** Builds a {@link Guardrail}; {@link #check} or {@link #asyncCheck} finishes it. */
  public static final class Builder<C> {
    private final String id;
    private @Nullable String name;
    private @Nullable Map<String, Object> action;
    private @Nullable String severity;
    private @Nullable Object config;
    private @Nullable String checkId;
    private String kind = "zero-llm";
    private final Map<String, Object> extras = new LinkedHashMap<>();

    private Builder(String id) {
      if (id == null || id.isBlank()) throw new IllegalArgumentException("A guardrail needs a non-empty id");
      this.id = id;
    }

    /** A display name. */
    public Builder<C> name(String value) {
      this.name = Objects.requireNonNull(value, "name");
      return this;
    }

    /** {@code halt}, {@code retry}, {@code escalate}, {@code log-only} or {@code compensate}. */
    public Builder<C> onViolation(String actionName) {
      return action(Map.of("on-violation", actionName));
    }

    /** The whole action object, for one that needs settings: {@code {"on-violation": "retry", "retry": {…}}}. */
    public Builder<C> action(Map<String, ?> value) {
      Object onViolation = value.get("on-violation");
      if (!(onViolation instanceof String s) || !ACTIONS.contains(s)) {
        throw new IllegalArgumentException("Guardrail \"" + id
            + "\": the action's on-violation must be halt, retry, escalate, log-only or compensate, not " + onViolation);
      }
      this.action = Collections.unmodifiableMap(new LinkedHashMap<>(value));
      return this;
    }

    /** {@code info}, {@code warn}, {@code error} (the runtime's default) or {@code critical}. */
    public Builder<C> severity(String value) {
      if (!SEVERITIES.contains(value)) {
        throw new IllegalArgumentException(
            "Guardrail \"" + id + "\": severity must be info, warn, error or critical, not " + value);
      }
      this.severity = value;
      return this;
    }

    /** The config's type: its schema is derived as a tool input's is, and the service binds values to it. */
    @SuppressWarnings("unchecked")
    public <C2> Builder<C2> config(Class<C2> type) {
      this.config = Objects.requireNonNull(type, "config");
      return (Builder<C2>) this;
    }

    /** The config as a JSON Schema; the check gets a {@code Map}. */
    @SuppressWarnings("unchecked")
    public Builder<Map<String, Object>> configSchema(Map<String, ?> schema) {
      this.config = Collections.unmodifiableMap(new LinkedHashMap<>(schema));
      return (Builder<Map<String, Object>>) this;
    }

    /** Sets {@code config} (the values the check runs with, keyed as on the wire), {@code scope}, {@code sandbox}, {@code limits} or {@code network}. */
    public Builder<C> set(String field, Object value) {
      if (!SETTABLE.contains(field)) {
        throw new IllegalArgumentException(
            "Guardrail \"" + id + "\": set() takes config, scope, sandbox, limits or network, not " + field);
      }
      extras.put(field, Objects.requireNonNull(value, field));
      return this;
    }

    /** The check's id; defaults to the guardrail's id. */
    public Builder<C> checkId(String value) {
      this.checkId = Objects.requireNonNull(value, "checkId");
      return this;
    }

    /** {@code zero-llm}, the default: a check over the trace. */
    public Builder<C> kind(String value) {
      this.kind = Objects.requireNonNull(value, "kind");
      return this;
    }

    /** Finishes the guardrail; refused when neither {@code onViolation} nor {@code action} was given. */
    public Guardrail<C> check(Check<C> check) {
      Objects.requireNonNull(check, "check");
      return asyncCheck((config, trace) -> CompletableFuture.completedFuture(check.check(config, trace)));
    }

    /** Finishes the guardrail with a check that returns a {@link CompletionStage}. */
    public Guardrail<C> asyncCheck(AsyncCheck<C> check) {
      Objects.requireNonNull(check, "check");
      if (action == null) {
        throw new IllegalStateException("Guardrail \"" + id
            + "\" has no action: call onViolation(\"halt\" | \"retry\" | \"escalate\" | \"log-only\" | \"compensate\") or action(Map) before check()");
      }
      return new Guardrail<>(this, check);
    }
  }
}
