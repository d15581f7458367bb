package com.kindgi.pack.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.util.Map;

/**
 * The one Jackson mapper: modules found as {@code findAndRegisterModules()} does (through
 * {@code META-INF/services}), dates as ISO strings, trailing tokens refused (as {@code JSON.parse} does).
 */
public final class Json {
  private static final ObjectMapper MAPPER = JsonMapper.builder()
      .findAndAddModules()
      .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
      .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .build();

  private Json() {}

  public static ObjectMapper mapper() {
    return MAPPER;
  }

  /** Compact JSON text of a value, written as JavaScript's {@code JSON.stringify} would. */
  public static String write(Object value) {
    return CanonicalJson.compact(MAPPER.valueToTree(value));
  }

  /** A value as a tree. */
  public static JsonNode tree(Object value) {
    return MAPPER.valueToTree(value);
  }

  /** A tree as plain maps, lists and scalars. */
  @SuppressWarnings("unchecked")
  public static Map<String, Object> toMap(JsonNode node) {
    return MAPPER.convertValue(node, Map.class);
  }

  /** Parses JSON text; throws on anything {@code JSON.parse} would refuse. */
  public static JsonNode parse(String text) throws JsonProcessingException {
    JsonNode node = MAPPER.readTree(text);
    if (node == null || node.isMissingNode()) throw new com.fasterxml.jackson.core.JsonParseException(null, "No content");
    return node;
  }
}
