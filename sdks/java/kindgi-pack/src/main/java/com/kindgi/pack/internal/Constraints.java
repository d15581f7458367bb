package com.kindgi.pack.internal;

import java.lang.annotation.Annotation;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

/**
 * Jakarta (or javax) Validation constraints as JSON Schema keywords. Read by annotation name, so the older
 * javax constraints count as the jakarta ones do.
 */
final class Constraints {
  private Constraints() {}

  static void apply(Map<String, Object> schema, List<Annotation> annotations) {
    for (Annotation a : annotations) {
      String pkg = a.annotationType().getPackageName();
      if (!pkg.equals("jakarta.validation.constraints") && !pkg.equals("javax.validation.constraints")) continue;
      String kind = kindOf(schema);
      switch (a.annotationType().getSimpleName()) {
        case "Size" -> {
          int min = (int) attr(a, "min");
          int max = (int) attr(a, "max");
          String[] keys = switch (kind) {
            case "array" -> new String[] {"minItems", "maxItems"};
            case "object" -> new String[] {"minProperties", "maxProperties"};
            default -> new String[] {"minLength", "maxLength"};
          };
          if (min > 0) schema.put(keys[0], min);
          if (max < Integer.MAX_VALUE) schema.put(keys[1], max);
        }
        case "Min" -> schema.put("minimum", attr(a, "value"));
        case "Max" -> schema.put("maximum", attr(a, "value"));
        case "DecimalMin" -> schema.put(
            Boolean.TRUE.equals(attr(a, "inclusive")) ? "minimum" : "exclusiveMinimum", decimal(a));
        case "DecimalMax" -> schema.put(
            Boolean.TRUE.equals(attr(a, "inclusive")) ? "maximum" : "exclusiveMaximum", decimal(a));
        case "Positive" -> schema.put("exclusiveMinimum", 0);
        case "PositiveOrZero" -> schema.put("minimum", 0);
        case "Negative" -> schema.put("exclusiveMaximum", 0);
        case "NegativeOrZero" -> schema.put("maximum", 0);
        case "Pattern" -> schema.put("pattern", attr(a, "regexp"));
        case "Email" -> schema.put("format", "email");
        case "NotBlank" -> {
          schema.put("minLength", Math.max(1, (int) schema.getOrDefault("minLength", 1)));
          schema.putIfAbsent("pattern", "\\S");
        }
        case "NotEmpty" -> {
          String key = switch (kind) {
            case "array" -> "minItems";
            case "object" -> "minProperties";
            default -> "minLength";
          };
          schema.put(key, Math.max(1, (int) schema.getOrDefault(key, 1)));
        }
        default -> {
          // Other constraints (@NotNull, @Past, …) have no keyword: required-ness is the type's.
        }
      }
    }
  }

  private static String kindOf(Map<String, Object> schema) {
    return schema.get("type") instanceof String t ? t : "";
  }

  private static Object decimal(Annotation a) {
    BigDecimal value = new BigDecimal((String) attr(a, "value"));
    try {
      return value.longValueExact();
    } catch (ArithmeticException e) {
      return value.doubleValue();
    }
  }

  private static Object attr(Annotation a, String name) {
    try {
      return a.annotationType().getMethod(name).invoke(a);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("Can't read " + a.annotationType().getName() + "." + name, e);
    }
  }
}
