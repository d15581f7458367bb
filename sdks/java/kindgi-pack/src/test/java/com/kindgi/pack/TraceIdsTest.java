package com.kindgi.pack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.kindgi.pack.internal.Json;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A caller's W3C {@code traceparent} in the records of {@code Main serve} (a real child JVM): call, ctx.log, errors. */
class TraceIdsTest {
  private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String PARENT = "00f067aa0ba902b7";
  @TempDir static Path dir;
  private static Process process;
  private static BufferedReader stderr;
  private static int port;

  @BeforeAll
  static void start() throws Exception {
    TestPacks.pack(dir, "{\"language\":\"java\",\"pack\":{\"id\":\"traced\",\"version\":\"1.0.0\"}}", "traced");
    Path index = dir.resolve("index.json");
    TestPacks.index(dir, index);
    ProcessBuilder builder = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
        System.getProperty("java.class.path"), "com.kindgi.pack.Main", "serve", "--index", index.toString(), "--host", "127.0.0.1"))
        .redirectOutput(ProcessBuilder.Redirect.DISCARD);
    builder.environment().clear();
    builder.environment().put("PATH", System.getenv().getOrDefault("PATH", ""));
    builder.environment().put("KINDGI_PACK_SERVICE_TOKEN", "t");
    builder.environment().put("PORT", "0");
    builder.environment().put("KINDGI_LOG_FORMAT", "json");
    process = builder.start();
    stderr = new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8));
    port = next(r -> "listening".equals(r.path("event").asText())).get("port").asInt();
  }

  @AfterAll
  static void stop() throws Exception {
    process.destroyForcibly();
    process.waitFor();
  }

  private static JsonNode next(Predicate<JsonNode> wanted) throws Exception {
    for (String line = stderr.readLine(); line != null; line = stderr.readLine()) {
      if (!line.startsWith("{")) continue;
      JsonNode record = Json.parse(line);
      if (wanted.test(record)) return record;
    }
    throw new AssertionError("No such record before stderr closed");
  }

  private static JsonNode nextCall() throws Exception {
    return next(r -> "call".equals(r.path("event").asText()));
  }

  private static void invoke(String input, String traceparent) throws Exception {
    String body = "{\"v\":2,\"kind\":\"invoke\",\"tool\":{\"id\":\"traced.log\"},\"input\":" + input
        + ",\"ctx\":{\"tenantId\":\"t\",\"runId\":\"r\"}}";
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/invoke"))
        .POST(HttpRequest.BodyPublishers.ofString(body)).header("content-type", "application/json").header("kindgi-pack-token", "t");
    if (traceparent != null) request.header("traceparent", traceparent);
    HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void theCallAndItsHandlerLinesCarryTheCallersTraceWithASpanOfTheirOwn() throws Exception {
    invoke("{}", "00-" + TRACE + "-" + PARENT + "-01");
    JsonNode line = next(r -> "pack.tool".equals(r.path("subsystem").asText()));
    JsonNode call = nextCall();
    assertEquals("traced handler line", line.get("message").asText());
    assertEquals(TRACE, line.get("traceId").asText(), line.toString());
    assertEquals("traced.log", line.get("toolId").asText());
    assertEquals("r", line.get("runId").asText());
    assertEquals(1, line.get("step").asInt());
    assertEquals(TRACE, call.get("traceId").asText(), call.toString());
    assertEquals(PARENT, call.get("parentSpanId").asText());
    assertTrue(call.get("spanId").asText().matches("[0-9a-f]{16}"), call.toString());
    assertNotEquals(PARENT, call.get("spanId").asText());
    assertEquals(call.get("spanId").asText(), line.get("spanId").asText());
  }

  @Test
  void aHandlerThatThrowsIsRecordedWithTheTrace() throws Exception {
    invoke("{\"fail\":true}", "00-" + TRACE + "-" + PARENT + "-00");
    JsonNode call = nextCall();
    assertEquals("handler-throw", call.get("outcome").asText());
    assertEquals(TRACE, call.get("traceId").asText(), call.toString());
  }

  @Test
  void aMalformedTraceparentIsIgnoredForAFreshTrace() throws Exception {
    for (String bad : List.of("00-" + TRACE.toUpperCase().replace('A', 'Z') + "-" + PARENT + "-01", "ff-" + TRACE + "-" + PARENT + "-01",
        "00-" + "0".repeat(32) + "-" + PARENT + "-01", "00-" + TRACE + "-" + PARENT)) {
      invoke("{}", bad);
      JsonNode call = nextCall();
      assertTrue(call.get("traceId").asText().matches("[0-9a-f]{32}"), call.toString());
      assertNotEquals(TRACE, call.get("traceId").asText(), bad);
      assertFalse(call.has("parentSpanId"), call.toString());
    }
  }
}
