package com.kindgi.pack.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.Error;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A networknt validation error as an Ajv-shaped issue: {@code {instancePath, schemaPath, keyword, params, message}}. */
final class AjvIssues {
  private AjvIssues() {}

  static Map<String, Object> toIssue(Error error) {
    String keyword = error.getKeyword() == null ? "" : error.getKeyword();
    Map<String, Object> params = new LinkedHashMap<>();
    String message;
    Object limit = keywordValue(error, keyword);
    switch (keyword) {
      case "required" -> {
        params.put("missingProperty", error.getProperty());
        message = "must have required property '" + error.getProperty() + "'";
      }
      case "additionalProperties" -> {
        params.put("additionalProperty", error.getProperty());
        message = "must NOT have additional properties";
      }
      case "type" -> {
        Object type = limit instanceof List<?> l ? String.join(",", l.stream().map(String::valueOf).toList()) : limit;
        params.put("type", type);
        message = "must be " + type;
      }
      case "minLength", "maxLength" -> message = limitMessage(params, limit, keyword.startsWith("min"), "characters");
      case "minItems", "maxItems" -> message = limitMessage(params, limit, keyword.startsWith("min"), "items");
      case "minProperties", "maxProperties" -> message = limitMessage(params, limit, keyword.startsWith("min"), "properties");
      case "minimum" -> message = comparison(params, ">=", limit);
      case "maximum" -> message = comparison(params, "<=", limit);
      case "exclusiveMinimum" -> message = comparison(params, ">", limit);
      case "exclusiveMaximum" -> message = comparison(params, "<", limit);
      case "multipleOf" -> {
        params.put("multipleOf", limit);
        message = "must be multiple of " + show(limit);
      }
      case "enum" -> {
        params.put("allowedValues", limit);
        message = "must be equal to one of the allowed values";
      }
      case "const" -> {
        params.put("allowedValue", limit);
        message = "must be equal to constant";
      }
      case "pattern" -> {
        params.put("pattern", limit);
        message = "must match pattern \"" + limit + "\"";
      }
      case "format" -> {
        params.put("format", limit);
        message = "must match format \"" + limit + "\"";
      }
      case "uniqueItems" -> message = "must NOT have duplicate items";
      case "anyOf" -> message = "must match a schema in anyOf";
      case "oneOf" -> message = "must match exactly one schema in oneOf";
      case "not" -> message = "must NOT be valid";
      case "false" -> message = "boolean schema is false";
      default -> message = error.getMessage() == null ? "must pass \"" + keyword + "\" keyword validation" : error.getMessage();
    }
    Map<String, Object> issue = new LinkedHashMap<>();
    issue.put("instancePath", pointer(error));
    issue.put("schemaPath", schemaPath(error));
    issue.put("keyword", keyword);
    issue.put("params", params);
    issue.put("message", message);
    return issue;
  }

  private static String limitMessage(Map<String, Object> params, Object limit, boolean min, String unit) {
    params.put("limit", limit);
    return "must NOT have " + (min ? "fewer" : "more") + " than " + show(limit) + " " + unit;
  }

  private static String comparison(Map<String, Object> params, String op, Object limit) {
    params.put("comparison", op);
    params.put("limit", limit);
    return "must be " + op + " " + show(limit);
  }

  private static String show(Object value) {
    return value instanceof Number n ? CanonicalJson.jsNumber(n.doubleValue()) : String.valueOf(value);
  }

  private static String pointer(Error error) {
    String path = error.getInstanceLocation() == null ? "" : error.getInstanceLocation().toString();
    return path.equals("/") ? "" : path;
  }

  private static String schemaPath(Error error) {
    String location = error.getSchemaLocation() == null ? "" : error.getSchemaLocation().toString();
    int hash = location.indexOf('#');
    return hash >= 0 ? location.substring(hash) : "#";
  }

  /** The keyword's value in the schema (the limit, the pattern, the allowed values), as plain Java. */
  private static Object keywordValue(Error error, String keyword) {
    JsonNode node = error.getSchemaNode();
    if (node != null && node.isObject() && node.has(keyword)) node = node.get(keyword);
    if (node == null) {
      Object[] args = error.getArguments();
      return args != null && args.length > 0 ? args[0] : null;
    }
    if (node.isArray()) {
      List<Object> values = new ArrayList<>();
      node.forEach(v -> values.add(Json.mapper().convertValue(v, Object.class)));
      return values;
    }
    return Json.mapper().convertValue(node, Object.class);
  }
}
