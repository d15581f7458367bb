package com.kindgi.pack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.kindgi.pack.internal.CanonicalJson;
import com.kindgi.pack.internal.Indexer;
import com.kindgi.pack.internal.IndexerException;
import com.kindgi.pack.internal.Json;
import com.kindgi.pack.internal.PackConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IndexerTest {
  private static final String ACME = "{\"language\":\"java\",\"pack\":{\"id\":\"acme\",\"version\":\"1.0.0\"},"
      + "\"env\":{\"required\":[\"CITATOR_URL\"],\"optional\":[\"LOG_LEVEL\"]}}";

  @Test
  void indexesTheSeedsExamplePackCanonicallyAndDeterministically(@TempDir Path dir) throws Exception {
    TestPacks.pack(dir, ACME, "acme");
    Path out = dir.resolve("target/index.json");
    Indexer.Report report = TestPacks.index(dir, out);
    assertEquals(List.of(), report.fileErrors());
    assertEquals(Map.of("tools", 2, "guardrails", 1, "agents", 1, "flows", 1), report.counts());
    String text = TestPacks.read(out);
    JsonNode index = Json.parse(text);
    assertEquals(CanonicalJson.canonical(index), text);
    assertTrue(text.endsWith("}\n") && text.startsWith("{\n  \"agents\": ["));
    assertEquals("2026-01-02T03:04:05.678Z", index.get("publishedAt").asText());
    assertEquals("[\"acme.greet\",\"acme.verify-citation\"]",
        CanonicalJson.compact(Json.tree(index.get("tools").findValuesAsText("id"))));
    JsonNode tool = index.get("tools").get(1);
    assertEquals("src/main/java/acme/tools/VerifyCitation.java", tool.get("modulePath").asText());
    assertEquals(false, tool.get("mutating").asBoolean());
    assertEquals(20, tool.at("/needsSpec/secrets/CITATOR_KEY/minLength").asInt());
    JsonNode guardrail = index.get("guardrails").get(0);
    assertEquals("{\"on-violation\":\"halt\"}", CanonicalJson.compact(guardrail.get("action")));
    assertEquals("critical", guardrail.get("severity").asText());
    assertEquals(2, guardrail.at("/config/minLookups").asInt());
    assertEquals("{\"optional\":[\"LOG_LEVEL\"],\"required\":[\"CITATOR_URL\"]}", CanonicalJson.canonical(index.get("env")).replaceAll("\\s", ""));
    assertEquals("{\"id\":\"acme.verify-citation\",\"range\":\"1.0.0\"}", CanonicalJson.compact(index.at("/agents/0/tools/0")));
    assertEquals(1, index.at("/flows/0/kernelPayloadVersion").asInt());
    Path again = dir.resolve("again.json");
    TestPacks.index(dir, again);
    assertEquals(text, TestPacks.read(again));
  }

  @Test
  void reportsTheSeedsCommonMistakesAsFileErrorsAndWritesNothing(@TempDir Path dir) throws Exception {
    TestPacks.pack(dir, "{\"language\":\"java\",\"pack\":{\"id\":\"mistakes\",\"version\":\"0.1.0\"}}", "mistakes");
    Path out = dir.resolve("index.json");
    Indexer.Report report = TestPacks.index(dir, out);
    Map<String, String> byFile = report.fileErrors().stream()
        .collect(Collectors.toMap(p -> p.file().replace("src/main/java/mistakes/", ""), p -> p.code() + " " + p.message()));
    assertEquals(7, byFile.size(), byFile.toString());
    assertEquals("manifest-validation-failed src/main/java/mistakes/agents/NoInstructions.java: NoInstructions.AGENT: agent "
        + "\"mistakes.no-instructions\" has no instructions: give it .instructions(\"…\")", byFile.get("agents/NoInstructions.java"));
    assertTrue(byFile.get("tools/InstanceField.java").startsWith("no-default-export"), byFile.toString());
    assertTrue(byFile.get("tools/InstanceField.java").contains("instance field"));
    assertTrue(byFile.get("tools/Helper.java").startsWith("no-default-export"));
    assertTrue(byFile.get("tools/Helper.java").contains("defines no tool"));
    assertTrue(byFile.get("tools/RecursiveInput.java").contains("property \"children[]\""), byFile.toString());
    assertTrue(byFile.get("guardrails/NoAction.java").startsWith("file-import-failed"));
    assertTrue(byFile.get("guardrails/NoAction.java").contains("has no action"));
    assertTrue(byFile.get("guardrails/WrongKind.java").startsWith("kind-mismatch"));
    assertTrue(byFile.get("guardrails/BadConfig.java").contains("config failed validation at /limit: must be >= 0"), byFile.toString());
    assertTrue(!report.written());
    assertTrue(!Files.exists(out));
  }

  @Test
  void warnsOfARequiredGuardrailConfigFieldWithNoValue(@TempDir Path dir) throws Exception {
    TestPacks.pack(dir, "{\"language\":\"java\",\"pack\":{\"id\":\"unset\",\"version\":\"0.1.0\"}}", "unset");
    Indexer.Report report = TestPacks.index(dir, dir.resolve("index.json"));
    assertEquals(List.of(), report.fileErrors());
    assertEquals(1, report.warnings().size(), report.warnings().toString());
    Indexer.Problem warning = report.warnings().get(0);
    assertEquals("config-field-unset", warning.code());
    assertTrue(warning.message().contains("guardrail \"unset.rule\" config field \"limit\" is required"), warning.message());
    assertTrue(!warning.message().contains("spare"), warning.message());
  }

  @Test
  void theDefaultArtifactVersionIsTheUtcDayCountingUpOverTheSameDaysIndex(@TempDir Path dir) throws Exception {
    Instant noon = Instant.parse("2026-12-01T12:00:00Z");
    Path out = dir.resolve("index.json");
    assertEquals("20261201.1", Indexer.nextArtifactVersion(out, noon));
    Files.writeString(out, "{\"artifactVersion\":\"20261201.7\"}");
    assertEquals("20261201.8", Indexer.nextArtifactVersion(out, noon));
    assertEquals("20261202.1", Indexer.nextArtifactVersion(out, Instant.parse("2026-12-02T00:00:00Z")));
    Files.writeString(out, "{\"artifactVersion\":\"20261201Z.1\"}");
    assertEquals("20261201.1", Indexer.nextArtifactVersion(out, noon));

    TestPacks.pack(dir, ACME, "acme");
    PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    List<String> args = List.of("--pack-dir", dir.toString(), "--published-at", "2026-12-01T12:00:00Z");
    assertEquals(0, com.kindgi.pack.internal.IndexCommand.run(args, quiet, quiet));
    assertEquals("20261201.1", Json.parse(TestPacks.read(dir.resolve("target/index.json"))).get("artifactVersion").asText());
    assertEquals(0, com.kindgi.pack.internal.IndexCommand.run(args, quiet, quiet));
    assertEquals("20261201.2", Json.parse(TestPacks.read(dir.resolve("target/index.json"))).get("artifactVersion").asText());
  }

  @Test
  void refusesConfigsItCannotRead(@TempDir Path dir) throws Exception {
    IndexerException missing = assertThrows(IndexerException.class, () -> PackConfig.load(dir));
    assertEquals("config-not-found", missing.code());
    Files.writeString(dir.resolve("kindgi.config.json"), "{\"language\":\"node\",\"pack\":{\"id\":\"a\",\"version\":\"1\"}}");
    assertEquals("config-parse-failed", assertThrows(IndexerException.class, () -> PackConfig.load(dir)).code());
    Files.writeString(dir.resolve("kindgi.config.json"), "{\"language\":\"java\",\"pack\":{\"id\":\"a\"}}");
    assertEquals("config-parse-failed", assertThrows(IndexerException.class, () -> PackConfig.load(dir)).code());
    Files.writeString(dir.resolve("kindgi.config.json"),
        "{\"language\":\"java\",\"pack\":{\"id\":\"a\",\"version\":\"1\"},\"env\":{\"required\":[\"A\",\"KINDGI_X\",\"A\"],\"extra\":[]}}");
    IndexerException env = assertThrows(IndexerException.class, () -> PackConfig.load(dir));
    assertEquals("config-invalid", env.code());
    assertTrue(env.getMessage().contains("`env` takes only `required` and `optional`, not `extra`"), env.getMessage());
    assertTrue(env.getMessage().contains("\"KINDGI_X\" in `env.required`: `KINDGI_*` names configure Kindgi, not the pack"));
    assertTrue(env.getMessage().contains("\"A\" is listed twice in `env.required`"));
    Files.writeString(dir.resolve("kindgi.config.json"), "{\"language\":\"java\",\"pack\":{\"id\":\"a\",\"version\":\"1\"}}");
    assertEquals("discovery-empty", assertThrows(IndexerException.class, () -> TestPacks.index(dir, dir.resolve("i.json"))).code());
  }

  @Test
  void theCommandExitsTwoOnBadArgumentsAndOneWithFileErrorsWritingNothing(@TempDir Path dir) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
    PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
    assertEquals(2, com.kindgi.pack.internal.IndexCommand.run(List.of(), o, e));
    assertEquals(2, com.kindgi.pack.internal.IndexCommand.run(List.of("--pack-dir", dir.toString(), "--published-at", "yesterday"), o, e));
    TestPacks.pack(dir, "{\"language\":\"java\",\"pack\":{\"id\":\"mistakes\",\"version\":\"0.1.0\"}}", "mistakes");
    assertEquals(1, com.kindgi.pack.internal.IndexCommand.run(List.of("--pack-dir", dir.toString()), o, e));
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("7 file(s) could not be indexed, so no index was written: "
        + "src/main/java/mistakes/agents/NoInstructions.java (manifest-validation-failed), "), err.toString(StandardCharsets.UTF_8));
    assertTrue(!out.toString(StandardCharsets.UTF_8).contains("Indexed"));
    assertTrue(!Files.exists(dir.resolve("target/index.json")));
    assertEquals(1, com.kindgi.pack.internal.IndexCommand.run(List.of("--pack-dir", dir.toString(), "--strict", "--json"), o, e));
    JsonNode failure = Json.parse(out.toString(StandardCharsets.UTF_8));
    assertEquals(false, failure.get("ok").asBoolean());
    assertEquals(7, failure.at("/error/fileErrors").size());
  }
}
