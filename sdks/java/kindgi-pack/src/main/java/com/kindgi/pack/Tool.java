package com.kindgi.pack;

import com.kindgi.pack.internal.Futures;
import com.kindgi.pack.internal.SchemaDeriver;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A tool: typed input, typed output, the team's code in between. A pack declares each as a
 * {@code public static final Tool<I, O>} field of a class in a {@code tools} package, built with
 * {@link #define(String)}.
 *
 * @param <I> what the handler gets: a record or bean, or {@code Map<String, Object>} for a schema map
 * @param <O> what the handler returns
 */
public final class Tool<I, O> {
  /** A handler that returns its output (it runs on a thread of its own, so it may block). */
  @FunctionalInterface
  public interface Handler<I, O> {
    O handle(I input, ToolContext ctx) throws Exception;
  }

  /** A handler built on futures: the service awaits the stage. */
  @FunctionalInterface
  public interface AsyncHandler<I, O> {
    CompletionStage<O> handle(I input, ToolContext ctx) throws Exception;
  }

  private static final Set<String> SETTABLE = Set.of("needs", "needsSpec", "sandbox", "limits", "network");
  private static final Pattern SEMVER =
      Pattern.compile("^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(-[0-9A-Za-z.-]+)?(\\+[0-9A-Za-z.-]+)?$");

  private final String id;
  private final @Nullable String description;
  private final @Nullable String version;
  private final Object input;
  private final Object output;
  private final @Nullable Boolean mutating;
  private final List<Map<String, Object>> effects;
  private final Map<String, Object> extras;
  private final AsyncHandler<I, O> handler;

  private Tool(Builder<I, O> b, AsyncHandler<I, O> handler) {
    this.id = b.id;
    this.description = b.description;
    this.version = b.version;
    this.input = b.input;
    this.output = b.output;
    this.mutating = b.mutating;
    this.effects = Collections.unmodifiableList(new ArrayList<>(b.effects));
    this.extras = Collections.unmodifiableMap(new LinkedHashMap<>(b.extras));
    this.handler = handler;
  }

  /** Starts a tool: {@code <pack-id>.<tool-name>}, kebab-case, dot-namespaced. */
  public static Builder<Map<String, Object>, Object> define(String id) {
    return new Builder<>(id);
  }

  /**
   * Runs the handler with {@code input} as given (no schema check, no defaults), awaiting an async
   * handler. What the handler throws is thrown.
   */
  public O call(I input, ToolContext ctx) throws Exception {
    return Futures.await(handler.handle(input, ctx));
  }

  /** Starts the handler, as {@link #call} does, without waiting. */
  public CompletionStage<O> callAsync(I input, ToolContext ctx) throws Exception {
    return handler.handle(input, ctx);
  }

  public String id() {
    return id;
  }

  public @Nullable String description() {
    return description;
  }

  /** The version given with {@code version(…)}, or null (the pack's version then applies). */
  public @Nullable String version() {
    return version;
  }

  public @Nullable Boolean mutating() {
    return mutating;
  }

  public List<Map<String, Object>> effects() {
    return effects;
  }

  /** Fields given with {@code set(field, value)}. */
  public Map<String, Object> extras() {
    return extras;
  }

  /** The class the input binds to, or null when the input is a schema map (the handler gets a Map). */
  public @Nullable Class<?> inputType() {
    return input instanceof Class<?> c ? c : null;
  }

  public @Nullable Class<?> outputType() {
    return output instanceof Class<?> c ? c : null;
  }

  /** The input's JSON Schema; throws {@link SchemaDeriver.SchemaException} naming a property that can't be one. */
  public Map<String, Object> inputSchema() {
    Map<String, Object> schema = schemaOf(input, "input");
    Object type = schema.get("type");
    if (input instanceof Class<?> ? !"object".equals(type) : type != null && !"object".equals(type)) {
      throw new SchemaDeriver.SchemaException("Tool \"" + id
          + "\" input must be an object (a record, a bean or an object schema): a model calls a tool with an object of arguments");
    }
    return schema;
  }

  public Map<String, Object> outputSchema() {
    return schemaOf(output, "output");
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> schemaOf(Object side, String name) {
    if (side instanceof Class<?> c) return SchemaDeriver.derive(c, "Tool \"" + id + "\" " + name);
    return (Map<String, Object>) side;
  }

  @Override
  public String toString() {
    return "Tool{" + id + (version == null ? "" : "@" + version) + "}";
  }

  /** Builds a {@link Tool}; {@link #handler} or {@link #asyncHandler} finishes it. */
  public static final class Builder<I, O> {
    private final String id;
    private @Nullable String description;
    private @Nullable String version;
    private Object input = Map.of("type", "object");
    private Object output = Map.of();
    private @Nullable Boolean mutating;
    private final List<Map<String, Object>> effects = new ArrayList<>();
    private final Map<String, Object> extras = new LinkedHashMap<>();

    private Builder(String id) {
      if (id == null || id.isBlank()) throw new IllegalArgumentException("A tool needs a non-empty id");
      this.id = id;
    }

    /** What the tool does and returns: the model reads it to decide when to call the tool. */
    public Builder<I, O> description(String text) {
      this.description = Objects.requireNonNull(text, "description");
      return this;
    }

    /** An exact semver; without it the tool has the pack's version. */
    public Builder<I, O> version(String semver) {
      if (semver == null || !SEMVER.matcher(semver).matches()) {
        throw new IllegalArgumentException("Tool \"" + id + "\" version must be an exact semver, not " + semver);
      }
      this.version = semver;
      return this;
    }

    /** The input type: a record or bean whose schema is derived (it must be an object). */
    @SuppressWarnings("unchecked")
    public <I2> Builder<I2, O> input(Class<I2> type) {
      this.input = Objects.requireNonNull(type, "input");
      return (Builder<I2, O>) this;
    }

    /** The input as a JSON Schema (an object schema); the handler gets a {@code Map}. */
    @SuppressWarnings("unchecked")
    public Builder<Map<String, Object>, O> input(Map<String, ?> schema) {
      this.input = Collections.unmodifiableMap(new LinkedHashMap<>(schema));
      return (Builder<Map<String, Object>, O>) this;
    }

    @SuppressWarnings("unchecked")
    public <O2> Builder<I, O2> output(Class<O2> type) {
      this.output = Objects.requireNonNull(type, "output");
      return (Builder<I, O2>) this;
    }

    /** The output as a JSON Schema; the handler returns any JSON-shaped value. */
    @SuppressWarnings("unchecked")
    public Builder<I, Object> output(Map<String, ?> schema) {
      this.output = Collections.unmodifiableMap(new LinkedHashMap<>(schema));
      return (Builder<I, Object>) this;
    }

    /** {@code false} declares the tool read-only: a dry run runs it, approval gates don't ask. */
    public Builder<I, O> mutating(boolean value) {
      this.mutating = value;
      return this;
    }

    /** Declares a side effect, such as {@code effect("writes", "db:ledger")}. */
    public Builder<I, O> effect(String kind, @Nullable String resource) {
      Map<String, Object> effect = new LinkedHashMap<>();
      effect.put("kind", Objects.requireNonNull(kind, "kind"));
      if (resource != null) effect.put("resource", resource);
      effects.add(Collections.unmodifiableMap(effect));
      return this;
    }

    /** Sets one of the index entry's other fields: {@code needs}, {@code needsSpec}, {@code sandbox}, {@code limits}, {@code network}. */
    public Builder<I, O> set(String field, Object value) {
      if (!SETTABLE.contains(field)) {
        throw new IllegalArgumentException(
            "Tool \"" + id + "\": set() takes needs, needsSpec, sandbox, limits or network, not " + field);
      }
      extras.put(field, Objects.requireNonNull(value, field));
      return this;
    }

    /** Finishes the tool with a handler that returns its output. */
    public Tool<I, O> handler(Handler<I, O> handler) {
      Objects.requireNonNull(handler, "handler");
      return new Tool<>(this, (in, ctx) -> java.util.concurrent.CompletableFuture.completedFuture(handler.handle(in, ctx)));
    }

    /** Finishes the tool with a handler that returns a {@link CompletionStage}. */
    public Tool<I, O> asyncHandler(AsyncHandler<I, O> handler) {
      return new Tool<>(this, Objects.requireNonNull(handler, "handler"));
    }
  }
}
