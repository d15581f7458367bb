package com.kindgi.pack.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.kindgi.pack.Agent;
import com.kindgi.pack.Flow;
import com.kindgi.pack.Guardrail;
import com.kindgi.pack.Tool;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The index entries of the primitives a class holds, as the TypeScript indexer writes them. */
final class IndexEntries {
  /** The built-in checks' ids: a pack may name one but not ship its own under it. */
  static final Set<String> RESERVED_CHECK_IDS = Set.of(
      "must-cite", "never-call-tool", "max-tool-calls", "output-matches", "tool-order", "required-substring", "forbidden-substring");

  /** An entry that can't be written, with the file error's code. */
  static final class EntryException extends Exception {
    final String code;

    EntryException(String code, String message) {
      super(message);
      this.code = code;
    }
  }

  private IndexEntries() {}

  static Map<String, Object> tool(Tool<?, ?> tool, String modulePath) throws EntryException {
    String label = "tool \"" + tool.id() + "\"";
    Map<String, Object> entry = new LinkedHashMap<>();
    entry.put("id", tool.id());
    entry.put("input", schema(tool::inputSchema, label + " input"));
    entry.put("output", schema(tool::outputSchema, label + " output"));
    entry.put("modulePath", modulePath);
    if (tool.version() != null) entry.put("version", tool.version());
    if (tool.description() != null) entry.put("description", tool.description());
    if (tool.mutating() != null) entry.put("mutating", tool.mutating());
    if (!tool.effects().isEmpty()) entry.put("effects", tool.effects());
    entry.putAll(plain(tool.extras(), label));
    return entry;
  }

  static Map<String, Object> guardrail(Guardrail<?> guardrail, String modulePath) throws EntryException {
    String label = "guardrail \"" + guardrail.id() + "\"";
    if (RESERVED_CHECK_IDS.contains(guardrail.checkId())) {
      throw new EntryException("reserved-check-id", label + " ships its own check under the built-in check id \""
          + guardrail.checkId() + "\", which the runtime would replace with the built-in; name it \"<pack id>.checks.<name>\"");
    }
    Map<String, Object> entry = new LinkedHashMap<>();
    entry.put("id", guardrail.id());
    entry.put("kind", guardrail.kind());
    entry.put("action", plain(guardrail.action(), label));
    entry.put("severity", guardrail.severity() == null ? "error" : guardrail.severity());
    entry.put("checkModulePath", modulePath);
    entry.put("checkId", guardrail.checkId());
    if (guardrail.name() != null) entry.put("name", guardrail.name());
    Map<String, Object> configSchema = schema(guardrail::configSchema, label + " config");
    if (configSchema != null) entry.put("configSchema", configSchema);
    Map<String, Object> extras = plain(guardrail.extras(), label);
    Object config = extras.get("config");
    if (config != null) {
      if (!(config instanceof Map)) throw new EntryException("manifest-validation-failed", label + ": `config` must be an object");
      if (configSchema != null) {
        try {
          List<Map<String, Object>> issues = SchemaValidator.validate(Json.tree(configSchema), Json.tree(config), false);
          if (!issues.isEmpty()) {
            throw new EntryException("manifest-validation-failed",
                label + " config failed validation " + SchemaValidator.describeFirst(issues));
          }
        } catch (SchemaValidator.CompileException e) {
          throw new EntryException("manifest-validation-failed", label + " configSchema failed to compile: " + e.getMessage());
        }
      }
    }
    Object scope = extras.get("scope");
    if (scope != null && !(scope instanceof Map)) throw new EntryException("manifest-validation-failed", label + ": `scope` must be an object");
    entry.putAll(extras);
    return entry;
  }

  static Map<String, Object> agent(Agent agent, String modulePath, String packVersion) throws EntryException {
    String label = "agent \"" + agent.id() + "\"";
    if (agent.instructions() == null) {
      throw new EntryException("manifest-validation-failed", label + " has no instructions: give it .instructions(\"…\")");
    }
    Map<String, Object> entry = new LinkedHashMap<>();
    entry.put("id", agent.id());
    entry.put("version", agent.version() == null ? packVersion : agent.version());
    entry.put("instructions", agent.instructions());
    entry.put("modulePath", modulePath);
    if (agent.description() != null) entry.put("description", agent.description());
    if (!agent.tools().isEmpty()) {
      List<Object> tools = new ArrayList<>();
      for (Agent.ToolRef ref : agent.tools()) {
        String range = ref.tool() != null ? (ref.tool().version() == null ? packVersion : ref.tool().version()) : ref.range();
        tools.add(Map.of("id", ref.id(), "range", range));
      }
      entry.put("tools", tools);
    }
    if (!agent.guardrails().isEmpty()) entry.put("guardrails", agent.guardrails());
    if (agent.name() != null) entry.put("name", agent.name());
    if (agent.model() != null) entry.put("model", agent.model());
    if (!agent.toolErrors().isEmpty()) entry.put("toolErrors", agent.toolErrors());
    if (!agent.conversationPolicy().isEmpty()) {
      Map<String, Object> policy = plain(agent.conversationPolicy(), label);
      checkPolicy(policy, label);
      entry.put("conversationPolicy", policy);
    }
    entry.putAll(plain(agent.extras(), label));
    return entry;
  }

  /** The conversation policy as specs/pack-index.schema.json's {@code conversationPolicy} allows it. */
  private static void checkPolicy(Map<String, Object> policy, String label) throws EntryException {
    limit(policy.get("maxSteps"), 100, label + ": conversationPolicy.maxSteps");
    limit(policy.get("maxToolCalls"), 1000, label + ": conversationPolicy.maxToolCalls");
    Object hitl = policy.get("hitl");
    if (hitl == null || hitl instanceof Boolean) return;
    if (!(hitl instanceof Map<?, ?> gates)) {
      throw new EntryException("manifest-validation-failed", label + ": conversationPolicy.hitl must be true, false or an object");
    }
    for (Map.Entry<?, ?> gate : gates.entrySet()) {
      String key = String.valueOf(gate.getKey());
      boolean ok = switch (key) {
        case "enabled" -> gate.getValue() instanceof Boolean;
        case "tools", "exempt" -> gate.getValue() instanceof List<?> ids && ids.stream().allMatch(i -> i instanceof String s && !s.isEmpty());
        default -> false;
      };
      if (!ok) {
        throw new EntryException("manifest-validation-failed", label + ": conversationPolicy.hitl." + key
            + " is not one of enabled (a boolean), tools or exempt (lists of tool ids)");
      }
    }
  }

  private static void limit(Object value, int max, String label) throws EntryException {
    if (value == null) return;
    if (!(value instanceof Integer || value instanceof Long) || ((Number) value).longValue() < 1 || ((Number) value).longValue() > max) {
      throw new EntryException("manifest-validation-failed", label + " must be a whole number from 1 to " + max);
    }
  }

  static Map<String, Object> flow(Flow flow, String modulePath, String packVersion) throws EntryException {
    String label = "flow \"" + flow.id() + "\"";
    Map<String, Object> entry = new LinkedHashMap<>();
    entry.put("id", flow.id());
    entry.put("version", flow.version() == null ? packVersion : flow.version());
    entry.put("kernelPayloadVersion", 1);
    entry.put("modulePath", modulePath);
    List<Object> nodes = new ArrayList<>();
    for (Flow.Node node : flow.nodes()) {
      Map<String, Object> n = new LinkedHashMap<>(plain(node.fields(), label));
      n.put("id", node.id());
      n.put("kind", node.kind());
      if (node.tool() != null) {
        String version = node.tool().version() == null ? packVersion : node.tool().version();
        n.put("tool", Map.of("id", node.tool().id(), "range", version));
      }
      nodes.add(n);
    }
    List<Object> edges = new ArrayList<>();
    for (Flow.Edge edge : flow.edges()) edges.add(Map.of("from", edge.from(), "to", edge.to()));
    entry.put("nodes", nodes);
    entry.put("edges", edges);
    if (flow.description() != null) entry.put("description", flow.description());
    entry.putAll(plain(flow.extras(), label));
    return entry;
  }

  private interface SchemaSource {
    Map<String, Object> get();
  }

  private static Map<String, Object> schema(SchemaSource source, String label) throws EntryException {
    Map<String, Object> schema;
    try {
      schema = source.get();
    } catch (SchemaDeriver.SchemaException e) {
      throw new EntryException("manifest-validation-failed", e.getMessage());
    }
    if (schema == null) return null;
    Map<String, Object> copy = plain(schema, label);
    try {
      SchemaValidator.compile(Json.tree(copy));
    } catch (SchemaValidator.CompileException e) {
      throw new EntryException("manifest-validation-failed", label + " schema failed to compile: " + e.getMessage());
    }
    return copy;
  }

  /** A value as plain JSON maps and lists (what the index holds), refusing what JSON can't carry. */
  private static Map<String, Object> plain(Map<String, ?> value, String label) throws EntryException {
    try {
      JsonNode tree = Json.tree(value);
      return Json.toMap(tree);
    } catch (IllegalArgumentException e) {
      throw new EntryException("manifest-validation-failed", label + ": a declared value is not JSON: " + e.getMessage());
    }
  }
}
