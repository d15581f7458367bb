package com.kindgi.pack.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.kindgi.pack.Cancellation;
import com.kindgi.pack.CheckResult;
import com.kindgi.pack.Guardrail;
import com.kindgi.pack.RunTrace;
import com.kindgi.pack.Tool;
import com.kindgi.pack.ToolContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs one tool call or check on the calling thread, as the handler runner does: input validated with
 * defaults filled, bound, handler called, output validated; a check's config validated as sent, then
 * bound with its defaults. Never throws: every outcome is a protocol message.
 */
public final class CallRunner {
  private final PackCatalog catalog;
  private final PackLog log;

  public CallRunner(PackCatalog catalog, PackLog log) {
    this.catalog = catalog;
    this.log = log;
  }

  /**
   * Runs a well-formed request (see {@link Messages#check}); {@code logFields} (the call's ids and trace ids)
   * go on every record its run writes.
   */
  public Map<String, Object> run(JsonNode request, Cancellation cancellation, Map<String, Object> logFields) {
    if ("invoke".equals(request.path("kind").asText())) return invoke(request, cancellation, logFields);
    return checkInvoke(request);
  }

  private Map<String, Object> invoke(JsonNode request, Cancellation cancellation, Map<String, Object> logFields) {
    String id = request.path("tool").path("id").asText();
    String version = request.path("tool").path("version").isTextual() ? request.path("tool").path("version").asText() : null;
    List<PackCatalog.ServedTool> versions = catalog.tools.get(id);
    if (versions == null || versions.isEmpty()) {
      return Messages.error("tool-not-in-pack", "This pack has no tool \"" + id + "\"", true, id, null);
    }
    PackCatalog.ServedTool served = null;
    if (version == null) {
      if (versions.size() > 1) {
        return Messages.error("tool-version-mismatch", "Tool \"" + id + "\" has several versions in this pack ("
            + String.join(", ", versions.stream().map(PackCatalog.ServedTool::version).toList()) + "); the caller named none", true, id, null);
      }
      served = versions.get(0);
    } else {
      for (PackCatalog.ServedTool t : versions) if (version.equals(t.version())) served = t;
      if (served == null) {
        List<String> known = versions.stream().map(PackCatalog.ServedTool::version).filter(v -> v != null).toList();
        String have = known.isEmpty() ? "unversioned" : String.join(", ", known);
        return Messages.error("tool-version-mismatch",
            "Tool \"" + id + "\" is " + have + " in this pack; the caller asked for " + version, true, id, null);
      }
    }
    return runTool(served, request.get("input") == null ? com.fasterxml.jackson.databind.node.MissingNode.getInstance() : request.get("input"),
        (ObjectNode) request.get("ctx"), cancellation, logFields);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private Map<String, Object> runTool(PackCatalog.ServedTool served, JsonNode rawInput, ObjectNode ctx, Cancellation cancellation,
      Map<String, Object> logFields) {
    String id = served.id();
    JsonNode input = rawInput.isMissingNode() ? com.fasterxml.jackson.databind.node.NullNode.getInstance() : rawInput.deepCopy();
    try {
      List<Map<String, Object>> issues = SchemaValidator.validate(served.input(), input, true);
      if (!issues.isEmpty()) return Messages.error("input-validation-failed", "Tool \"" + id + "\" input failed validation", true, id, issues);
    } catch (SchemaValidator.CompileException e) {
      return Messages.error("input-validation-failed", "Tool \"" + id + "\" input schema failed to compile: " + e.getMessage(), true, id, null);
    }
    Tool tool = served.tool();
    Object bound;
    try {
      bound = tool.inputType() == null ? Json.mapper().convertValue(input, Object.class) : Json.mapper().convertValue(input, tool.inputType());
    } catch (IllegalArgumentException e) {
      List<Map<String, Object>> issues = List.of(Map.of("instancePath", "", "message", "must match the tool's input type: " + firstLine(e)));
      return Messages.error("input-validation-failed", "Tool \"" + id + "\" input failed validation", true, id, new ArrayList<>(issues));
    }
    Object output;
    try {
      output = tool.call(bound, context(served, ctx, cancellation, logFields));
    } catch (Throwable t) {
      Map<String, Object> error = Messages.error("handler-throw", "Handler for tool \"" + id + "\" threw: " + Messages.describe(t), true, id, null);
      error.put("cause", Messages.cause(t));
      return error;
    }
    JsonNode outputTree;
    try {
      outputTree = Json.tree(output);
    } catch (IllegalArgumentException e) {
      return Messages.error("output-validation-failed", "Tool \"" + id + "\" handler produced output that JSON cannot carry: " + firstLine(e),
          true, id, new ArrayList<>(List.of(Map.of("instancePath", "", "message", "must be a JSON value, got " + firstLine(e)))));
    }
    try {
      List<Map<String, Object>> issues = SchemaValidator.validate(served.output(), outputTree, false);
      if (!issues.isEmpty()) {
        return Messages.error("output-validation-failed", "Tool \"" + id + "\" handler produced output that failed validation", true, id, issues);
      }
    } catch (SchemaValidator.CompileException e) {
      return Messages.error("output-validation-failed", "Tool \"" + id + "\" output schema failed to compile: " + e.getMessage(), true, id, null);
    }
    return Messages.result(outputTree);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private Map<String, Object> checkInvoke(JsonNode request) {
    String id = request.path("check").path("id").asText();
    PackCatalog.ServedCheck served = catalog.checks.get(id);
    if (served == null) return Messages.error("check-not-in-pack", "This pack has no check \"" + id + "\"", false, id, null);
    JsonNode config = request.get("config").deepCopy();
    if (served.configSchema() != null) {
      try {
        List<Map<String, Object>> issues = SchemaValidator.validate(served.configSchema(), config, false);
        if (!issues.isEmpty()) {
          return Messages.error("input-validation-failed",
              "Check \"" + id + "\" config failed validation " + SchemaValidator.describeFirst(issues), false, id, issues);
        }
        Defaults.fill(served.configSchema(), served.configSchema(), config, 0);
      } catch (SchemaValidator.CompileException e) {
        return Messages.error("input-validation-failed", "Check \"" + id + "\" config schema failed to compile: " + e.getMessage(), false, id, null);
      }
    }
    Guardrail guardrail = served.guardrail();
    JsonNode trace = request.get("trace");
    try {
      Object bound = guardrail.configType() == null ? Json.mapper().convertValue(config, Map.class)
          : Json.mapper().convertValue(config, guardrail.configType());
      Map<String, Object> traceMap = trace != null && trace.isObject() ? Json.toMap(trace) : new LinkedHashMap<>();
      CheckResult result = guardrail.evaluate(bound, new RunTrace(traceMap));
      return Messages.checkResult(result.toWire());
    } catch (Throwable t) {
      Map<String, Object> error = Messages.error("handler-throw", "Check \"" + id + "\" evaluate() threw: " + Messages.describe(t), false, id, null);
      error.put("cause", Messages.cause(t));
      return error;
    }
  }

  private ToolContext context(PackCatalog.ServedTool served, ObjectNode ctx, Cancellation cancellation, Map<String, Object> logFields) {
    Map<String, Object> raw = Json.toMap(ctx);
    Object sent = raw.remove("secrets");
    Map<String, Object> secrets = declaredSecrets(served, sent instanceof Map<?, ?> s ? castMap(s) : Map.of(), logFields);
    Map<String, Object> toolFields = new LinkedHashMap<>(logFields);
    toolFields.put("toolId", served.id());
    return com.kindgi.pack.Contexts.create(
        ctx.path("tenantId").asText(), ctx.path("runId").asText(), text(ctx, "requestId"), text(ctx, "projectId"), text(ctx, "orgId"),
        stringMap(raw.get("env")), secrets,
        raw.get("config") instanceof Map<?, ?> c ? castMap(c) : Map.of(),
        raw.get("settings") instanceof Map<?, ?> st ? castMap(st) : Map.of(), cancellation, raw, log, toolFields);
  }

  /**
   * The sent secrets the tool declares in {@code needsSpec}: a caller that sends more (another tool's key)
   * must not hand it to this handler. Dropped names are logged, never their values.
   */
  private Map<String, Object> declaredSecrets(PackCatalog.ServedTool served, Map<String, Object> sent, Map<String, Object> logFields) {
    Map<String, Object> kept = new LinkedHashMap<>();
    List<String> dropped = new ArrayList<>();
    for (Map.Entry<String, Object> e : sent.entrySet()) {
      if (served.secrets().contains(e.getKey())) kept.put(e.getKey(), e.getValue());
      else dropped.add(e.getKey());
    }
    if (!dropped.isEmpty()) {
      dropped.sort(null);
      log.record("secrets-dropped", PackLog.Level.warn, "Tool \"" + served.id() + "\" was sent secrets its needsSpec doesn't declare, "
          + "dropped: " + String.join(", ", dropped), withFields(Map.of("toolId", served.id(), "names", dropped), logFields));
    }
    return kept;
  }

  private static Map<String, Object> withFields(Map<String, Object> own, Map<String, Object> logFields) {
    Map<String, Object> fields = new LinkedHashMap<>(own);
    logFields.forEach(fields::putIfAbsent);
    return fields;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> castMap(Map<?, ?> m) {
    return (Map<String, Object>) m;
  }

  private static Map<String, String> stringMap(Object value) {
    Map<String, String> out = new LinkedHashMap<>();
    if (value instanceof Map<?, ?> m) m.forEach((k, v) -> {
      if (v instanceof String s) out.put(String.valueOf(k), s);
    });
    return out;
  }

  private static String text(JsonNode ctx, String field) {
    return ctx.path(field).isTextual() ? ctx.path(field).asText() : null;
  }

  private static String firstLine(Exception e) {
    String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    return m.lines().findFirst().orElse(m);
  }
}
