package com.kindgi.pack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import acme.guardrails.Citations;
import acme.tools.VerifyCitation;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import codec.CodecModule;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import com.kindgi.pack.internal.Json;
import com.kindgi.pack.internal.SchemaDeriver;
import com.kindgi.pack.internal.SchemaDeriver.SchemaException;
import jakarta.validation.constraints.Email;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.Size;
import java.math.BigDecimal;
import java.net.URI;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

class SchemaDerivationTest {
  enum Color { RED, @JsonProperty("dark-green") GREEN }

  record Inner(String name) {}

  @JsonIgnoreProperties(ignoreUnknown = true)
  record Loose(int n) {}

  record Everything(
      @JsonPropertyDescription("Who to greet") @NotBlank String name,
      @Positive @Max(10) int count,
      long big,
      double ratio,
      BigDecimal amount,
      boolean flag,
      @Nullable String note,
      Optional<Integer> maybe,
      @JsonProperty(defaultValue = "3") int retries,
      @JsonProperty(value = "renamed", defaultValue = "hi") String original,
      @Size(min = 1, max = 5) List<String> tags,
      Set<Integer> unique,
      String[] array,
      Map<String, Double> weights,
      Color color,
      UUID id,
      Instant at,
      LocalDate day,
      URI link,
      @Email String email,
      Inner inner,
      Loose loose) {}

  record Recursive(String name, List<Recursive> children) {}

  record BadMap(Map<Integer, String> byNumber) {}

  record HasThread(Thread worker) {}

  /** A bean: properties from its getters, by their Jackson names. */
  public static final class Bean {
    private String title = "";
    private @Nullable Integer pages;

    public String getTitle() {
      return title;
    }

    public void setTitle(String title) {
      this.title = title;
    }

    @JsonProperty("pageCount")
    public @Nullable Integer getPages() {
      return pages;
    }

    public void setPages(@Nullable Integer pages) {
      this.pages = pages;
    }
  }

  private static String json(Object value) {
    return Json.write(value);
  }

  @Test
  void theSeedsToolInputAndOutput() {
    assertEquals("{\"type\":\"object\",\"properties\":{\"citation\":{\"type\":\"string\",\"minLength\":1},"
        + "\"jurisdiction\":{\"type\":\"string\",\"pattern\":\"^(US|UK|EU)$\"}},\"required\":[\"citation\",\"jurisdiction\"],"
        + "\"additionalProperties\":false}", json(VerifyCitation.TOOL.inputSchema()));
    assertEquals("{\"type\":\"object\",\"properties\":{\"found\":{\"type\":\"boolean\"},"
        + "\"canonicalCite\":{\"type\":[\"string\",\"null\"]}},\"required\":[\"found\"],\"additionalProperties\":false}",
        json(VerifyCitation.TOOL.outputSchema()));
  }

  @Test
  void theSeedsGuardrailConfigHasItsDefault() {
    assertEquals("{\"type\":\"object\",\"properties\":{\"minLookups\":{\"type\":\"integer\",\"minimum\":0,\"default\":1}},"
        + "\"additionalProperties\":false}", json(Citations.NO_FABRICATED_QUOTES.configSchema()));
  }

  @Test
  void everyRowOfTheTable() {
    Map<String, Object> schema = SchemaDeriver.derive(Everything.class, "Tool \"t\" input");
    @SuppressWarnings("unchecked")
    Map<String, Object> p = (Map<String, Object>) schema.get("properties");
    assertEquals("{\"type\":\"string\",\"minLength\":1,\"pattern\":\"\\\\S\",\"description\":\"Who to greet\"}", json(p.get("name")));
    assertEquals("{\"type\":\"integer\",\"exclusiveMinimum\":0,\"maximum\":10}", json(p.get("count")));
    assertEquals("{\"type\":\"integer\"}", json(p.get("big")));
    assertEquals("{\"type\":\"number\"}", json(p.get("ratio")));
    assertEquals("{\"type\":\"number\"}", json(p.get("amount")));
    assertEquals("{\"type\":\"boolean\"}", json(p.get("flag")));
    assertEquals("{\"type\":[\"string\",\"null\"]}", json(p.get("note")));
    assertEquals("{\"type\":[\"integer\",\"null\"]}", json(p.get("maybe")));
    assertEquals("{\"type\":\"integer\",\"default\":3}", json(p.get("retries")));
    assertEquals("{\"type\":\"string\",\"default\":\"hi\"}", json(p.get("renamed")));
    assertEquals("{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"minItems\":1,\"maxItems\":5}", json(p.get("tags")));
    assertEquals("{\"type\":\"array\",\"items\":{\"type\":\"integer\"},\"uniqueItems\":true}", json(p.get("unique")));
    assertEquals("{\"type\":\"array\",\"items\":{\"type\":\"string\"}}", json(p.get("array")));
    assertEquals("{\"type\":\"object\",\"additionalProperties\":{\"type\":\"number\"}}", json(p.get("weights")));
    assertEquals("{\"type\":\"string\",\"enum\":[\"RED\",\"dark-green\"]}", json(p.get("color")));
    assertEquals("{\"type\":\"string\",\"format\":\"uuid\"}", json(p.get("id")));
    assertEquals("{\"type\":\"string\",\"format\":\"date-time\"}", json(p.get("at")));
    assertEquals("{\"type\":\"string\",\"format\":\"date\"}", json(p.get("day")));
    assertEquals("{\"type\":\"string\",\"format\":\"uri\"}", json(p.get("link")));
    assertEquals("{\"type\":\"string\",\"format\":\"email\"}", json(p.get("email")));
    assertEquals("{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"],"
        + "\"additionalProperties\":false}", json(p.get("inner")));
    assertEquals("{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}},\"required\":[\"n\"]}", json(p.get("loose")));
    assertEquals(List.of("name", "count", "big", "ratio", "amount", "flag", "tags", "unique", "array", "weights", "color",
        "id", "at", "day", "link", "email", "inner", "loose"), schema.get("required"));
    assertEquals(false, schema.get("additionalProperties"));
  }

  @Test
  void aTypeThatCannotBeASchemaNamesTheProperty() {
    SchemaException recursive = assertThrows(SchemaException.class, () -> SchemaDeriver.derive(Recursive.class, "Tool \"t\" input"));
    assertTrue(recursive.getMessage().contains("property \"children[]\""), recursive.getMessage());
    assertTrue(recursive.getMessage().contains("recursive"), recursive.getMessage());
    SchemaException map = assertThrows(SchemaException.class, () -> SchemaDeriver.derive(BadMap.class, "Tool \"t\" input"));
    assertTrue(map.getMessage().contains("property \"byNumber\""), map.getMessage());
    assertTrue(map.getMessage().contains("keys must be strings"), map.getMessage());
    SchemaException thread = assertThrows(SchemaException.class, () -> SchemaDeriver.derive(HasThread.class, "Tool \"t\" input"));
    assertTrue(thread.getMessage().contains("property \"worker\""), thread.getMessage());
  }

  @Test
  void aBeanIsAnObjectOfItsProperties() {
    assertEquals("{\"type\":\"object\",\"properties\":{\"title\":{\"type\":\"string\"},"
        + "\"pageCount\":{\"type\":[\"integer\",\"null\"]}},\"required\":[\"title\"],\"additionalProperties\":false}",
        json(SchemaDeriver.derive(Bean.class, "Tool \"t\" input")));
  }

  @Test
  void aSchemaMapInputMayLeaveItsTypeOut() {
    Tool<Map<String, Object>, Object> tool = Tool.define("acme.map").input(Map.of("properties", Map.of())).handler((input, ctx) -> input);
    assertEquals(Map.of("properties", Map.of()), tool.inputSchema());
    Tool<Map<String, Object>, Object> array = Tool.define("acme.array").input(Map.of("type", "array")).handler((input, ctx) -> input);
    assertThrows(SchemaException.class, array::inputSchema);
  }

  @Test
  void aNonObjectInputIsRefused() {
    Tool<String, Object> tool = Tool.define("acme.bad").input(String.class).handler((input, ctx) -> input);
    SchemaException e = assertThrows(SchemaException.class, tool::inputSchema);
    assertTrue(e.getMessage().contains("must be an object"), e.getMessage());
  }

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  record Snake(String firstName, @Size(min = 2) String lastName) {}

  @Test
  void schemasSeeTheMappersModulesMixInsAndNamingStrategiesAsBindingDoes() throws Exception {
    Map<String, Object> renamed = SchemaDeriver.derive(CodecModule.Renamed.class, "Tool \"t\" input");
    assertEquals("{\"type\":\"object\",\"properties\":{\"renamedByMixIn\":{\"type\":\"string\",\"maxLength\":3},"
        + "\"size\":{\"type\":\"integer\"}},\"required\":[\"renamedByMixIn\",\"size\"],\"additionalProperties\":false}",
        json(renamed));
    // What the schema accepts, binding binds.
    CodecModule.Renamed bound = Json.mapper().readValue("{\"renamedByMixIn\":\"abc\",\"size\":1}", CodecModule.Renamed.class);
    assertEquals("abc", bound.original());

    Map<String, Object> snake = SchemaDeriver.derive(Snake.class, "Tool \"t\" input");
    assertEquals("[\"first_name\",\"last_name\"]", json(snake.get("required")));
    assertEquals("Ada", Json.mapper().readValue("{\"first_name\":\"Ada\",\"last_name\":\"Lovelace\"}", Snake.class).firstName());
    assertEquals("{\"type\":\"string\",\"minLength\":2}", json(((Map<?, ?>) snake.get("properties")).get("last_name")));
  }

  @Test
  void aTypeWhoseWireFormAModulesCodecDecidesIsAnErrorNamingTheProperty() {
    SchemaException e = assertThrows(SchemaException.class, () -> SchemaDeriver.derive(CodecModule.Priced.class, "Tool \"t\" input"));
    assertTrue(e.getMessage().startsWith("Tool \"t\" input: property \"price\""), e.getMessage());
    assertTrue(e.getMessage().contains("can't be derived"), e.getMessage());
  }
}
