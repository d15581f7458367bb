package com.kindgi.pack.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Map;

/**
 * Fills in each property's {@code default} where the property is missing, nested ones too, as Ajv's
 * {@code useDefaults} does: through {@code properties}, {@code items}, {@code prefixItems},
 * {@code additionalProperties}, {@code allOf} and local {@code $ref}s.
 */
final class Defaults {
  private static final int MAX_DEPTH = 64;

  private Defaults() {}

  static void fill(JsonNode root, JsonNode schema, JsonNode instance, int depth) {
    if (depth > MAX_DEPTH || schema == null || !schema.isObject() || instance == null) return;
    JsonNode ref = schema.get("$ref");
    if (ref != null && ref.isTextual() && ref.textValue().startsWith("#")) {
      JsonNode target = root.at(ref.textValue().substring(1));
      if (!target.isMissingNode()) fill(root, target, instance, depth + 1);
    }
    JsonNode allOf = schema.get("allOf");
    if (allOf != null && allOf.isArray()) for (JsonNode sub : allOf) fill(root, sub, instance, depth + 1);
    if (instance.isObject()) {
      ObjectNode object = (ObjectNode) instance;
      JsonNode properties = schema.get("properties");
      if (properties != null && properties.isObject()) {
        for (Iterator<Map.Entry<String, JsonNode>> it = properties.fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> p = it.next();
          JsonNode def = p.getValue().isObject() ? p.getValue().get("default") : null;
          if (!object.has(p.getKey()) && def != null) object.set(p.getKey(), def.deepCopy());
          if (object.has(p.getKey())) fill(root, p.getValue(), object.get(p.getKey()), depth + 1);
        }
      }
      JsonNode additional = schema.get("additionalProperties");
      if (additional != null && additional.isObject()) {
        for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> e = it.next();
          if (properties == null || !properties.has(e.getKey())) fill(root, additional, e.getValue(), depth + 1);
        }
      }
    } else if (instance.isArray()) {
      ArrayNode array = (ArrayNode) instance;
      JsonNode prefix = schema.get("prefixItems");
      int start = 0;
      if (prefix != null && prefix.isArray()) {
        for (int i = 0; i < prefix.size() && i < array.size(); i++) fill(root, prefix.get(i), array.get(i), depth + 1);
        start = prefix.size();
      }
      JsonNode items = schema.get("items");
      if (items != null && items.isObject()) {
        for (int i = start; i < array.size(); i++) fill(root, items, array.get(i), depth + 1);
      }
    }
  }
}
