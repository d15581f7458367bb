package com.kindgi.pack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.kindgi.pack.internal.Json;
import com.kindgi.pack.internal.Messages;
import com.kindgi.pack.internal.SchemaValidator;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The SDK's messages against the repository's specs/*.schema.json, the contract every implementation shares:
 * what it writes validates, what the schema accepts it accepts, and what its published checks refuse the
 * schema refuses too.
 */
class WireSchemaTest {
  private static final Path SPECS = Path.of("../../../specs");
  private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(
      SpecificationVersion.DRAFT_2020_12,
      builder -> builder.schemaRegistryConfig(SchemaRegistryConfig.builder().formatAssertionsEnabled(true).build()));

  private static JsonNode read(String name) throws Exception {
    return Json.parse(Files.readString(SPECS.resolve(name)));
  }

  /** One $def of a spec (the whole document when {@code def} is null), its refs resolved within the file. */
  private static Schema schema(String file, String def) throws Exception {
    ObjectNode copy = (ObjectNode) read(file);
    // Without its $id each copy is a document of its own to the registry, which caches by $id.
    copy.remove("$id");
    if (def != null) {
      copy.remove("oneOf");
      copy.put("$ref", "#/$defs/" + def);
    }
    return REGISTRY.getSchema(copy);
  }

  private static boolean valid(Schema schema, Object value) {
    return schema.validate(Json.tree(value)).isEmpty();
  }

  private static JsonNode json(String text) throws Exception {
    return Json.parse(text);
  }

  @Test
  void everyExampleValidatesAndEveryExampleRequestIsAccepted() throws Exception {
    List<Path> files;
    try (Stream<Path> listed = Files.list(SPECS.resolve("examples"))) {
      files = listed.filter(p -> p.toString().endsWith(".json")).sorted().toList();
    }
    assertTrue(files.size() >= 8, "specs/examples holds an example of each message");
    for (Path file : files) {
      String name = file.getFileName().toString();
      JsonNode example = Json.parse(Files.readString(file));
      Schema schema = name.equals("index.json") ? schema("pack-index.schema.json", null)
          : schema("pack-protocol.schema.json", name.equals("info.json") ? "info"
              : name.endsWith("-request.json") ? "request" : "response");
      assertTrue(schema.validate(example).isEmpty(), name + ": " + schema.validate(example));
      if (name.endsWith("-request.json")) assertNull(Messages.check(example), name + " is accepted");
    }
  }

  static Stream<Arguments> refusedByBoth() {
    return Stream.of(
        Arguments.of("[1,2]", "malformed-message"),
        Arguments.of("{\"v\":1,\"kind\":\"invoke\"}", "unknown-protocol-version"),
        Arguments.of("{\"v\":2,\"kind\":\"run\"}", "unexpected-message-kind"),
        Arguments.of("{\"v\":2,\"kind\":\"invoke\",\"tool\":{},\"input\":{},\"ctx\":{}}", "malformed-message"),
        Arguments.of("{\"v\":2,\"kind\":\"invoke\",\"tool\":{\"id\":\"\"},\"input\":{},"
            + "\"ctx\":{\"tenantId\":\"t\",\"runId\":\"r\"}}", "malformed-message"),
        Arguments.of("{\"v\":2,\"kind\":\"invoke\",\"tool\":{\"id\":\"a\",\"version\":1},\"input\":{},"
            + "\"ctx\":{\"tenantId\":\"t\",\"runId\":\"r\"}}", "malformed-message"),
        Arguments.of("{\"v\":2,\"kind\":\"invoke\",\"tool\":{\"id\":\"a\"},\"input\":{},\"ctx\":{\"tenantId\":\"t\"}}",
            "malformed-message"),
        Arguments.of("{\"v\":2,\"kind\":\"check-invoke\",\"check\":{},\"config\":{},\"trace\":{}}", "malformed-message"),
        Arguments.of("{\"v\":2,\"kind\":\"check-invoke\",\"check\":{\"id\":\"x\"},\"config\":[],\"trace\":{}}",
            "malformed-message"));
  }

  @ParameterizedTest
  @MethodSource("refusedByBoth")
  void whatThePublishedChecksRefuseTheSchemaRefuses(String message, String code) throws Exception {
    assertFalse(valid(schema("pack-protocol.schema.json", "request"), json(message)));
    Map<String, Object> refusal = Messages.check(json(message));
    assertNotNull(refusal, message);
    assertEquals(code, refusal.get("code"));
  }

  @Test
  void unknownFieldsAreAcceptedByBoth() throws Exception {
    // The schema's forward-compatibility rule: readers keep fields they do not know, at every level.
    Schema request = schema("pack-protocol.schema.json", "request");
    for (String message : List.of(
        "{\"v\":2,\"kind\":\"invoke\",\"tool\":{\"id\":\"a\",\"x\":1},\"input\":null,"
            + "\"ctx\":{\"tenantId\":\"t\",\"runId\":\"r\",\"custom\":{}},\"x\":1}",
        "{\"v\":2,\"kind\":\"check-invoke\",\"check\":{\"id\":\"c\",\"x\":1},\"config\":{},\"trace\":{\"x\":1},\"x\":1}")) {
      assertTrue(valid(request, json(message)), message);
      assertNull(Messages.check(json(message)), message);
    }
  }

  @Test
  void everyReplyTheSdkWritesValidates() throws Exception {
    Schema response = schema("pack-protocol.schema.json", "response");
    List<Map<String, Object>> replies = new ArrayList<>();
    for (JsonNode code : read("pack-protocol.schema.json").path("$defs").path("errorCode").path("enum")) {
      replies.add(Messages.error(code.asText(), "why"));
      replies.add(Messages.error(code.asText(), "why", true, "acme.tool", null));
    }
    JsonNode schema = json("{\"type\":\"object\",\"required\":[\"q\"],\"properties\":{\"n\":{\"minimum\":0}}}");
    List<Map<String, Object>> issues = SchemaValidator.validate(schema, json("{\"n\":-1}"), false);
    assertFalse(issues.isEmpty());
    replies.add(Messages.error("input-validation-failed", "bad input", false, "acme.check", issues));
    Map<String, Object> thrown = Messages.error("handler-throw", "boom", true, "acme.tool", null);
    thrown.put("cause", Messages.cause(new IllegalStateException("boom")));
    replies.add(thrown);
    replies.add(Messages.result(Map.of("found", true)));
    replies.add(Messages.checkResult(CheckResult.pass().toWire()));
    replies.add(Messages.checkResult(CheckResult.fail("too short").withAttributes(Map.of("len", 2)).toWire()));
    for (Map<String, Object> reply : replies) {
      assertTrue(valid(response, reply), Json.write(reply) + ": " + response.validate(Json.tree(reply)));
    }
  }

  @Test
  void aCheckResultWithoutPassedIsRefused() throws Exception {
    Schema response = schema("pack-protocol.schema.json", "response");
    assertFalse(valid(response, json("{\"v\":2,\"kind\":\"check-result\",\"result\":{}}")));
    assertFalse(valid(response, json("{\"v\":2,\"kind\":\"check-result\",\"result\":{\"passed\":\"yes\"}}")));
  }
}
