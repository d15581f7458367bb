package com.kindgi.pack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.kindgi.pack.internal.Json;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** How the service binds a validated input to a record: absent optional values, java.time, output form. */
class BindingTest {
  record Input(String name, Optional<String> nickname, @Nullable String note, Instant at) {}

  @Test
  void anAbsentOptionalIsEmptyAndAnAbsentNullableIsNull() {
    Input input = Json.mapper().convertValue(Map.of("name", "Ada", "at", "2026-01-02T03:04:05Z"), Input.class);
    assertEquals(Optional.empty(), input.nickname());
    assertNull(input.note());
    assertEquals(Instant.parse("2026-01-02T03:04:05Z"), input.at());
  }

  @Test
  void outputIsWrittenWithIsoDatesAndEmptyOptionalsAsNull() {
    Input input = new Input("Ada", Optional.empty(), null, Instant.parse("2026-01-02T03:04:05Z"));
    assertEquals("{\"name\":\"Ada\",\"nickname\":null,\"note\":null,\"at\":\"2026-01-02T03:04:05Z\"}", Json.write(input));
  }
}
