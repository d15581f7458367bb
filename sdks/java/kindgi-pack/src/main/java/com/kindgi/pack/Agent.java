package com.kindgi.pack;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * An agent's declaration: its instructions, the tools it may call and the guardrails its turns must
 * satisfy. A pack declares each as a {@code public static final Agent} field of a class in an
 * {@code agents} package. The runtime runs agents; the pack service never does.
 */
public final class Agent {
  /** A tool the agent calls: a {@link Tool} of this pack (its version pinned), or another pack's id and semver range. */
  public record ToolRef(String id, @Nullable Tool<?, ?> tool, @Nullable String range) {}

  private final String id;
  private @Nullable String version;
  private @Nullable String description;
  private @Nullable String instructions;
  private final List<ToolRef> tools = new ArrayList<>();
  private final List<String> guardrails = new ArrayList<>();
  private final Map<String, Object> extras = new LinkedHashMap<>();

  private Agent(String id) {
    if (id == null || id.isBlank()) throw new IllegalArgumentException("An agent needs a non-empty id");
    this.id = id;
  }

  /** Starts an agent: {@code <pack-id>.<agent-name>}. */
  public static Agent define(String id) {
    return new Agent(id);
  }

  /** An exact semver; without it the agent has the pack's version. */
  public Agent version(String value) {
    this.version = Objects.requireNonNull(value, "version");
    return this;
  }

  public Agent description(String value) {
    this.description = Objects.requireNonNull(value, "description");
    return this;
  }

  /** The system instructions the model gets. */
  public Agent instructions(String value) {
    this.instructions = Objects.requireNonNull(value, "instructions");
    return this;
  }

  /** A tool of this pack; pins its version. */
  public Agent tool(Tool<?, ?> tool) {
    tools.add(new ToolRef(tool.id(), tool, null));
    return this;
  }

  /** A tool of another pack: its id and a semver range; the highest active match is picked at turn start. */
  public Agent tool(String toolId, String range) {
    tools.add(new ToolRef(Objects.requireNonNull(toolId, "toolId"), null, Objects.requireNonNull(range, "range")));
    return this;
  }

  /** A guardrail the agent's turns must satisfy. */
  public Agent guardrail(Guardrail<?> guardrail) {
    guardrails.add(guardrail.id());
    return this;
  }

  /** A guardrail by id (one of this pack's, or a registered one). */
  public Agent guardrail(String guardrailId) {
    guardrails.add(Objects.requireNonNull(guardrailId, "guardrailId"));
    return this;
  }

  /** Any other field of the agent's index entry ({@code capabilities}, {@code model}, {@code conversationPolicy}, …). */
  public Agent set(String field, Object value) {
    if (List.of("id", "version", "modulePath", "tools", "guardrails").contains(field)) {
      throw new IllegalArgumentException("Agent \"" + id + "\": " + field + " has its own method");
    }
    extras.put(field, Objects.requireNonNull(value, field));
    return this;
  }

  public String id() {
    return id;
  }

  public @Nullable String version() {
    return version;
  }

  public @Nullable String description() {
    return description;
  }

  public @Nullable String instructions() {
    return instructions;
  }

  public List<ToolRef> tools() {
    return Collections.unmodifiableList(tools);
  }

  public List<String> guardrails() {
    return Collections.unmodifiableList(guardrails);
  }

  public Map<String, Object> extras() {
    return Collections.unmodifiableMap(extras);
  }

  @Override
  public String toString() {
    return "Agent{" + id + "}";
  }
}
