package com.kindgi.pack.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import com.networknt.schema.path.PathType;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JSON Schema 2020-12 validation (networknt json-schema-validator) with failures in Ajv's shape and
 * wording, so a Java pack service answers with the same {@code issues} as the TypeScript one. Compiled
 * schemas are cached by their text, up to 512.
 */
public final class SchemaValidator {
  /** A schema the validator can't compile. */
  public static final class CompileException extends Exception {
    public CompileException(String message) {
      super(message);
    }
  }

  private static final int CACHE_SIZE = 512;
  private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(
      SpecificationVersion.DRAFT_2020_12,
      builder -> builder.schemaRegistryConfig(SchemaRegistryConfig.builder()
          .pathType(PathType.JSON_POINTER)
          .formatAssertionsEnabled(true)
          .losslessNarrowing(true)
          .build()));
  private static final Map<String, Schema> CACHE = Collections.synchronizedMap(
      new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Schema> eldest) {
          return size() > CACHE_SIZE;
        }
      });

  private SchemaValidator() {}

  /** Compiles (or takes from the cache) a schema. */
  public static Schema compile(JsonNode schema) throws CompileException {
    String key = CanonicalJson.compact(schema);
    Schema cached = CACHE.get(key);
    if (cached != null) return cached;
    try {
      Schema compiled = REGISTRY.getSchema(schema);
      compiled.initializeValidators();
      CACHE.put(key, compiled);
      return compiled;
    } catch (RuntimeException e) {
      throw new CompileException(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
    }
  }

  /**
   * Validates {@code instance} (filling in defaults first when {@code fillDefaults}, in place) and returns
   * the issues, empty when it is valid.
   */
  public static List<Map<String, Object>> validate(JsonNode schema, JsonNode instance, boolean fillDefaults)
      throws CompileException {
    Schema compiled = compile(schema);
    if (fillDefaults) Defaults.fill(schema, schema, instance, 0);
    List<Map<String, Object>> issues = new ArrayList<>();
    for (com.networknt.schema.Error error : compiled.validate(instance)) issues.add(AjvIssues.toIssue(error));
    return issues;
  }

  /** {@code at /a/b: must be >= 0} for the first issue, as one-line messages say it. */
  public static String describeFirst(List<Map<String, Object>> issues) {
    if (issues.isEmpty()) return "invalid";
    Map<String, Object> first = issues.get(0);
    String path = (String) first.get("instancePath");
    return "at " + (path == null || path.isEmpty() ? "/" : path) + ": " + first.get("message");
  }
}
