package com.kindgi.pack.internal;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.introspect.AnnotatedMember;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import com.fasterxml.jackson.databind.type.TypeFactory;
import java.lang.annotation.Annotation;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.AnnotatedType;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.URI;
import java.net.URL;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.ZonedDateTime;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * Derives a JSON Schema (Draft 2020-12) from a record or bean: components are properties by their
 * Jackson names, {@code @Nullable}/{@code Optional}/{@code @JsonProperty(defaultValue)} make a property
 * optional, Jakarta Validation constraints become keywords, and unknown properties are refused unless
 * the type says {@code @JsonIgnoreProperties(ignoreUnknown = true)}.
 */
public final class SchemaDeriver {
  /** A type that can't be a JSON Schema; the message names the property. */
  public static final class SchemaException extends RuntimeException {
    public SchemaException(String message) {
      super(message);
    }
  }

  private static final TypeFactory TYPES = TypeFactory.defaultInstance();

  private SchemaDeriver() {}

  /** The schema of {@code type}; {@code owner} ("Tool "x" input") prefixes error messages. */
  public static Map<String, Object> derive(Class<?> type, String owner) {
    return new Run(owner).schema(TYPES.constructType(type), "", List.of());
  }

  private record Property(String name, JavaType type, List<Annotation> annotations, boolean typeNullable) {}

  private static final class Run {
    private final String owner;
    private final Deque<Class<?>> stack = new ArrayDeque<>();

    Run(String owner) {
      this.owner = owner;
    }

    private SchemaException fail(String path, JavaType type, String why) {
      String where = path.isEmpty() ? "" : ": property \"" + path + "\"";
      return new SchemaException(owner + where + " (" + type.toCanonical() + ") can't be a JSON Schema: " + why);
    }

    Map<String, Object> schema(JavaType type, String path, List<Annotation> annotations) {
      Map<String, Object> out = base(type, path);
      Constraints.apply(out, annotations);
      for (Annotation a : annotations) {
        if (a instanceof JsonPropertyDescription d && !d.value().isEmpty()) out.put("description", d.value());
      }
      return out;
    }

    private Map<String, Object> base(JavaType type, String path) {
      Class<?> raw = type.getRawClass();
      Map<String, Object> out = new LinkedHashMap<>();
      if (raw == String.class || raw == char.class || raw == Character.class || raw == CharSequence.class) {
        out.put("type", "string");
      } else if (raw == boolean.class || raw == Boolean.class) {
        out.put("type", "boolean");
      } else if (raw == int.class || raw == long.class || raw == short.class || raw == byte.class
          || raw == Integer.class || raw == Long.class || raw == Short.class || raw == Byte.class
          || raw == BigInteger.class || raw == OptionalInt.class || raw == OptionalLong.class) {
        out.put("type", "integer");
      } else if (raw == double.class || raw == float.class || raw == Double.class || raw == Float.class
          || raw == BigDecimal.class || raw == Number.class || raw == OptionalDouble.class) {
        out.put("type", "number");
      } else if (raw == UUID.class) {
        format(out, "uuid");
      } else if (raw == Instant.class || raw == OffsetDateTime.class || raw == ZonedDateTime.class) {
        format(out, "date-time");
      } else if (raw == LocalDate.class) {
        format(out, "date");
      } else if (raw == LocalTime.class || raw == OffsetTime.class) {
        format(out, "time");
      } else if (raw == URI.class || raw == URL.class) {
        format(out, "uri");
      } else if (raw == Duration.class) {
        format(out, "duration");
      } else if (raw == LocalDateTime.class) {
        out.put("type", "string");
      } else if (raw.isEnum()) {
        out.put("type", "string");
        out.put("enum", enumValues(raw));
      } else if (raw == Optional.class) {
        return schema(type.containedTypeOrUnknown(0), path, List.of());
      } else if (type.isArrayType() || Collection.class.isAssignableFrom(raw)) {
        if (raw == byte[].class) throw fail(path, type, "a byte array has no JSON form here; use a base64 String");
        out.put("type", "array");
        out.put("items", schema(type.getContentType(), path + "[]", List.of()));
        if (Set.class.isAssignableFrom(raw)) out.put("uniqueItems", true);
      } else if (Map.class.isAssignableFrom(raw)) {
        JavaType key = type.getKeyType();
        if (key != null && key.getRawClass() != String.class && key.getRawClass() != Object.class) {
          throw fail(path, type, "a map's keys must be strings, not " + key.toCanonical());
        }
        out.put("type", "object");
        JavaType value = type.getContentType();
        if (value != null && value.getRawClass() != Object.class) {
          out.put("additionalProperties", schema(value, path + "{}", List.of()));
        }
      } else if (raw == Object.class || JsonNode.class.isAssignableFrom(raw)) {
        return out;
      } else if (raw.isPrimitive() || raw.getName().startsWith("java.") || raw.getName().startsWith("javax.")
          || raw.isInterface() || Modifier.isAbstract(raw.getModifiers())) {
        throw fail(path, type, "only records, beans, strings, numbers, booleans, enums, collections and maps are");
      } else {
        return object(type, path);
      }
      return out;
    }

    private static void format(Map<String, Object> out, String format) {
      out.put("type", "string");
      out.put("format", format);
    }

    private static List<Object> enumValues(Class<?> raw) {
      List<Object> values = new ArrayList<>();
      for (Object constant : raw.getEnumConstants()) {
        String name = ((Enum<?>) constant).name();
        try {
          JsonProperty p = raw.getField(name).getAnnotation(JsonProperty.class);
          if (p != null && !p.value().isEmpty()) name = p.value();
        } catch (NoSuchFieldException e) {
          // A constant is always a field; keep its name.
        }
        values.add(name);
      }
      return values;
    }

    private Map<String, Object> object(JavaType type, String path) {
      Class<?> raw = type.getRawClass();
      if (stack.contains(raw)) throw fail(path, type, "the type is recursive (" + raw.getSimpleName() + " contains itself)");
      stack.push(raw);
      try {
        Map<String, Object> properties = new LinkedHashMap<>();
        List<String> required = new ArrayList<>();
        for (Property p : properties(type, path)) {
          String childPath = path.isEmpty() ? p.name() : path + "." + p.name();
          boolean optional = p.type().getRawClass() == Optional.class || p.type().getRawClass() == OptionalInt.class
              || p.type().getRawClass() == OptionalLong.class || p.type().getRawClass() == OptionalDouble.class;
          boolean nullable = optional || p.typeNullable() || hasNullable(p.annotations());
          Map<String, Object> schema = schema(p.type(), childPath, p.annotations());
          String defaultText = null;
          for (Annotation a : p.annotations()) {
            if (a instanceof JsonProperty jp && !jp.defaultValue().isEmpty()) defaultText = jp.defaultValue();
          }
          if (defaultText != null) schema.put("default", defaultValue(defaultText, schema, childPath, p.type()));
          if (nullable) allowNull(schema);
          properties.put(p.name(), schema);
          if (!nullable && defaultText == null) required.add(p.name());
        }
        // After the properties, so a property that can't be a schema is named before its owner's codec is built.
        String custom = WireForm.customBinding(type);
        if (custom != null) throw fail(path, type, custom);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("type", "object");
        out.put("properties", properties);
        if (!required.isEmpty()) out.put("required", required);
        // As binding reads it: a mix-in's @JsonIgnoreProperties counts too.
        DeserializationConfig config = Json.mapper().getDeserializationConfig();
        JsonIgnoreProperties.Value ignore = config.getDefaultPropertyIgnorals(raw, config.introspectClassAnnotations(type).getClassInfo());
        boolean ignoreUnknown = (ignore != null && ignore.getIgnoreUnknown())
            || !config.isEnabled(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
        if (!ignoreUnknown) out.put("additionalProperties", false);
        return out;
      } finally {
        stack.pop();
      }
    }

    private Object defaultValue(String text, Map<String, Object> schema, String path, JavaType type) {
      if ("string".equals(schema.get("type"))) return text;
      try {
        return Json.mapper().convertValue(Json.parse(text), Object.class);
      } catch (Exception e) {
        throw fail(path, type, "defaultValue \"" + text + "\" is not JSON for its type");
      }
    }

    @SuppressWarnings("unchecked")
    private static void allowNull(Map<String, Object> schema) {
      Object type = schema.get("type");
      if (type instanceof String t) {
        schema.put("type", List.of(t, "null"));
        if (schema.get("enum") instanceof List<?> values) {
          List<Object> withNull = new ArrayList<>((List<Object>) values);
          withNull.add(null);
          schema.put("enum", withNull);
        }
      } else if (!schema.isEmpty()) {
        Map<String, Object> copy = new LinkedHashMap<>(schema);
        schema.clear();
        schema.put("anyOf", List.of(copy, Map.of("type", "null")));
      }
    }

    private static boolean hasNullable(List<Annotation> annotations) {
      for (Annotation a : annotations) {
        if (a.annotationType().getSimpleName().equals("Nullable")) return true;
      }
      return false;
    }

    /**
     * The type's properties as binding sees them: Jackson's introspection with the mapper's configuration, so
     * mix-ins, naming strategies, {@code @JsonProperty} and {@code @JsonIgnore} (from the type or a module) count
     * here exactly as they do when the service binds the input. Annotations come from every member of a
     * property (field, accessor, setter, creator parameter), mix-ins included.
     */
    private List<Property> properties(JavaType type, String path) {
      List<Property> out = new ArrayList<>();
      BeanDescription description = Json.mapper().getSerializationConfig().introspect(type);
      for (BeanPropertyDefinition definition : description.findProperties()) {
        if (!definition.couldSerialize()) continue;
        AnnotatedMember primary = definition.getPrimaryMember();
        String childPath = path.isEmpty() ? definition.getName() : path + "." + definition.getName();
        for (AnnotatedMember member : members(definition)) {
          if (WireForm.customCodec(member.getAnnotation(JsonSerialize.class), member.getAnnotation(JsonDeserialize.class))) {
            throw fail(childPath, primary.getType(), "its @JsonSerialize/@JsonDeserialize codec decides its wire form, which "
                + "can't be derived; give the tool a schema (input(Map.of(…)))");
          }
        }
        List<Annotation> annotations = new ArrayList<>();
        boolean typeNullable = false;
        for (AnnotatedMember member : members(definition)) {
          collect(annotations, member);
          if (member.getAnnotated() instanceof Field f) typeNullable |= typeUseNullable(f.getAnnotatedType());
          if (member.getAnnotated() instanceof Method m) typeNullable |= typeUseNullable(m.getAnnotatedReturnType());
        }
        out.add(new Property(definition.getName(), primary.getType(), annotations, typeNullable));
      }
      return out;
    }

    private static List<AnnotatedMember> members(BeanPropertyDefinition definition) {
      List<AnnotatedMember> out = new ArrayList<>();
      for (AnnotatedMember m : new AnnotatedMember[] {definition.getField(), definition.getGetter(), definition.getSetter(),
          definition.getConstructorParameter()}) {
        if (m != null) out.add(m);
      }
      return out;
    }



    private static boolean typeUseNullable(AnnotatedType type) {
      for (Annotation a : type.getAnnotations()) {
        if (a.annotationType().getSimpleName().equals("Nullable")) return true;
      }
      return false;
    }

    /**
     * Adds a member's annotations, each type once: in declaration order (so constraints apply in a stable order),
     * each as Jackson resolves it (a mix-in's wins), then the ones only a mix-in adds, by name.
     */
    private static void collect(List<Annotation> out, AnnotatedMember member) {
      List<Annotation> ordered = new ArrayList<>();
      AnnotatedElement element = member.getAnnotated();
      if (element != null) {
        for (Annotation declared : element.getAnnotations()) {
          Annotation resolved = member.getAnnotation(declared.annotationType());
          ordered.add(resolved == null ? declared : resolved);
        }
      }
      List<Annotation> added = new ArrayList<>();
      for (Annotation a : member.annotations()) {
        boolean declared = false;
        for (Annotation o : ordered) declared |= o.annotationType() == a.annotationType();
        if (!declared) added.add(a);
      }
      added.sort(java.util.Comparator.comparing(a -> a.annotationType().getName()));
      ordered.addAll(added);
      for (Annotation a : ordered) {
        boolean seen = false;
        for (Annotation existing : out) seen |= existing.annotationType() == a.annotationType();
        if (!seen) out.add(a);
      }
    }
  }
}
