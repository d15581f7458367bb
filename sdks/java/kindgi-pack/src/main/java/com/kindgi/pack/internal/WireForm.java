package com.kindgi.pack.internal;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.deser.BeanDeserializerBase;
import com.fasterxml.jackson.databind.deser.DefaultDeserializationContext;
import com.fasterxml.jackson.databind.ser.std.BeanSerializerBase;
import org.jspecify.annotations.Nullable;

/**
 * Whether binding (the one {@link Json} mapper) treats a type or property as a bean, the only wire form a
 * schema can be derived for. A codec a module registers, a type's {@code @JsonValue} or {@code @JsonCreator}
 * delegate, or a property's {@code @JsonSerialize(using)} decides the wire form itself, and a schema derived
 * from the fields would describe a shape binding refuses.
 */
final class WireForm {
  private WireForm() {}

  /** True when a property's own annotations name a codec. */
  static boolean customCodec(@Nullable JsonSerialize serialize, @Nullable JsonDeserialize deserialize) {
    return (serialize != null && serialize.using() != JsonSerializer.None.class)
        || (deserialize != null && deserialize.using() != JsonDeserializer.None.class);
  }

  /** Why {@code type}'s wire form can't be derived (the codec that decides it), or null when it is a bean both ways. */
  static @Nullable String customBinding(JavaType type) {
    ObjectMapper mapper = Json.mapper();
    Object serializer;
    Object deserializer;
    try {
      serializer = mapper.getSerializerProviderInstance().findValueSerializer(type);
      deserializer = ((DefaultDeserializationContext) mapper.getDeserializationContext())
          .createInstance(mapper.getDeserializationConfig(), null, null).findRootValueDeserializer(type);
    } catch (Exception e) {
      return "Jackson can't bind it: " + e.getMessage();
    }
    boolean serializerIsBean = serializer instanceof BeanSerializerBase;
    if (serializerIsBean && deserializer instanceof BeanDeserializerBase) return null;
    Object custom = serializerIsBean ? deserializer : serializer;
    return "its wire form is decided by " + custom.getClass().getName() + " (a Jackson module's or the type's own codec), "
        + "which can't be derived; give the tool a schema (input(Map.of(…)))";
  }
}
