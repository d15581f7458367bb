package com.kindgi.pack;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * An agent's declaration: its instructions, the tools it may call and the guardrails its turns must
 * satisfy. A pack declares each as a {@code public static final Agent} field of a class in an
 * {@code agents} package. The runtime runs agents; the pack service never does.
 */
public final class Agent {
  /** A tool the agent calls: a {@link Tool} of this pack (its version pinned), or another pack's id and semver range. */
  public record ToolRef(String id, @Nullable Tool<?, ?> tool, @Nullable String range) {}

  private static final Pattern ERROR_CODE = Pattern.compile("^[a-z][a-z0-9]*(-[a-z0-9]+)*$");

  private final String id;
  private @Nullable String version;
  private @Nullable String name;
  private @Nullable String description;
  private @Nullable String instructions;
  private @Nullable String model;
  private final List<ToolRef> tools = new ArrayList<>();
  private final List<String> guardrails = new ArrayList<>();
  private final List<String> toolErrors = new ArrayList<>();
  private final Map<String, Object> conversationPolicy = new LinkedHashMap<>();
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

  /** A display name. */
  public Agent name(String value) {
    this.name = Objects.requireNonNull(value, "name");
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

  /** The model entry of the server's {@code models} the agent runs on; {@code default} without it. */
  public Agent model(String value) {
    if (value == null || value.isBlank()) throw new IllegalArgumentException("Agent \"" + id + "\": model must be a non-empty name");
    this.model = value;
    return this;
  }

  /**
   * The tool failures the model is shown and may fix, by code: {@code tool-error} (the handler threw),
   * {@code input-validation-failed}, {@code tool-not-found}, {@code deadline-exceeded}, … Any other failure
   * fails the turn.
   */
  public Agent toolErrors(String... codes) {
    for (String code : codes) {
      if (code == null || !ERROR_CODE.matcher(code).matches()) {
        throw new IllegalArgumentException("Agent \"" + id + "\": toolErrors takes error codes in kebab-case, got " + code);
      }
      if (!toolErrors.contains(code)) toolErrors.add(code);
    }
    return this;
  }

  /** Approval gates: asks before the first use in a turn of every tool that is not read-only. */
  public Agent hitl(boolean enabled) {
    conversationPolicy.put("hitl", enabled);
    return this;
  }

  /**
   * One field of the conversation policy ({@code hitl}: true, false or {@code Map.of("tools", …, "exempt", …)};
   * {@code maxSteps}, 1 to 100; {@code maxToolCalls}, 1 to 1000), keyed as in the index.
   */
  public Agent conversationPolicy(String field, Object value) {
    conversationPolicy.put(Objects.requireNonNull(field, "field"), Objects.requireNonNull(value, field));
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
    if (List.of("id", "version", "modulePath", "tools", "guardrails", "name", "model", "toolErrors", "conversationPolicy")
        .contains(field)) {
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

  public @Nullable String name() {
    return name;
  }

  public @Nullable String model() {
    return model;
  }

  public List<String> toolErrors() {
    return Collections.unmodifiableList(toolErrors);
  }

  public Map<String, Object> conversationPolicy() {
    return Collections.unmodifiableMap(conversationPolicy);
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
