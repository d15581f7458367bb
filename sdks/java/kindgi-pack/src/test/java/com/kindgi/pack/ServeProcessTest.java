package com.kindgi.pack;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code Main serve} as a real child JVM: exit codes, lifecycle records, SIGTERM drain. */
class ServeProcessTest {
  private final List<Process> started = new ArrayList<>();

  @AfterEach
  void killChildren() throws Exception {
    for (Process p : started) {
      p.destroyForcibly();
      p.waitFor();
    }
  }

  private Process serve(Map<String, String> env, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
        System.getProperty("java.class.path"), "com.kindgi.pack.Main", "serve"));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD);
    builder.environment().clear();
    builder.environment().put("PATH", System.getenv().getOrDefault("PATH", ""));
    builder.environment().putAll(env);
    Process process = builder.start();
    started.add(process);
    return process;
  }

  private static JsonNode nextRecord(BufferedReader stderr, String event) throws Exception {
    for (String line = stderr.readLine(); line != null; line = stderr.readLine()) {
      if (!line.startsWith("{")) continue;
      JsonNode record = Json.parse(line);
      if (event.equals(record.path("event").asText())) return record;
    }
    throw new AssertionError("No " + event + " record before stderr closed");
  }

  private static BufferedReader stderr(Process p) {
    return new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8));
  }

  @Test
  void badSettingsExitOneWithEveryProblemInOneRecord() throws Exception {
    Process p = serve(Map.of("PORT", "eighty", "KINDGI_LOG_FORMAT", "json"));
    JsonNode record = nextRecord(stderr(p), "config-invalid");
    assertEquals(1, p.waitFor());
    assertEquals("error", record.get("level").asText());
    assertEquals("config-invalid", record.get("kind").asText());
    assertEquals("[\"PORT must be a port number, got \\\"eighty\\\"\",\"KINDGI_PACK_SERVICE_TOKEN is required\"]",
        Json.write(record.get("problems")));
  }

  @Test
  void anUnreadableIndexExitsOneWithBootFailed(@TempDir Path dir) throws Exception {
    Process p = serve(Map.of("KINDGI_PACK_SERVICE_TOKEN", "t", "PORT", "0"), "--index", dir.resolve("none.json").toString());
    JsonNode record = nextRecord(stderr(p), "boot-failed");
    assertEquals(1, p.waitFor());
    assertTrue(record.get("message").asText().contains("Cannot read the pack index"), record.toString());
  }

  private static HttpResponse<String> invoke(int port, String tool, String ctx) throws Exception {
    String body = "{\"v\":2,\"kind\":\"invoke\",\"tool\":{\"id\":\"" + tool + "\"},\"input\":{},\"ctx\":" + ctx + "}";
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/invoke"))
        .POST(HttpRequest.BodyPublishers.ofString(body)).header("content-type", "application/json").header("kindgi-pack-token", "t")
        .build(), HttpResponse.BodyHandlers.ofString());
  }

  private static final String PROBE_WITH_ENV =
      "{\"language\":\"java\",\"pack\":{\"id\":\"probe\",\"version\":\"1.0.0\"},\"env\":{\"optional\":[\"DECLARED\"]}}";

  @Test
  void packCodeSeesOnlyDeclaredAndPlatformNamesNeverKindgiOnes(@TempDir Path dir) throws Exception {
    TestPacks.pack(dir, PROBE_WITH_ENV, "probe");
    Path index = dir.resolve("index.json");
    TestPacks.index(dir, index);
    Process p = serve(Map.of("KINDGI_PACK_SERVICE_TOKEN", "t", "PORT", "0", "KINDGI_LOG_FORMAT", "json", "DECLARED", "yes",
        "UNDECLARED", "secret-value", "LC_PROBE", "platform", "KINDGI_OTHER", "x"), "--index", index.toString(), "--host", "127.0.0.1");
    BufferedReader stderr = stderr(p);
    JsonNode dropped = nextRecord(stderr, "env-dropped");
    assertEquals("[\"UNDECLARED\"]", Json.write(dropped.get("names")));
    assertTrue(!dropped.toString().contains("secret-value"));
    int port = nextRecord(stderr, "listening").get("port").asInt();
    JsonNode env = Json.parse(invoke(port, "probe.env", "{\"tenantId\":\"t\",\"runId\":\"r\"}").body()).at("/output/env");
    assertEquals("yes", env.path("DECLARED").asText());
    assertEquals("platform", env.path("LC_PROBE").asText());
    assertTrue(!env.has("UNDECLARED"), env.toString());
    env.fieldNames().forEachRemaining(name -> assertTrue(!name.startsWith("KINDGI_"), env.toString()));
    p.toHandle().destroy();
    nextRecord(stderr, "stopped");
    assertEquals(0, p.waitFor());
  }

  @Test
  void theFilterOffKeepsEveryVariable(@TempDir Path dir) throws Exception {
    TestPacks.pack(dir, PROBE_WITH_ENV, "probe");
    Path index = dir.resolve("index.json");
    TestPacks.index(dir, index);
    Process p = serve(Map.of("KINDGI_PACK_SERVICE_TOKEN", "t", "PORT", "0", "KINDGI_PACK_ENV_FILTER", "off", "UNDECLARED", "kept"),
        "--index", index.toString(), "--host", "127.0.0.1");
    int port = nextRecord(stderr(p), "listening").get("port").asInt();
    JsonNode env = Json.parse(invoke(port, "probe.env", "{\"tenantId\":\"t\",\"runId\":\"r\"}").body()).at("/output/env");
    assertEquals("kept", env.path("UNDECLARED").asText());
  }

  @Test
  void aHandlerGetsOnlyTheSecretsItsNeedsSpecDeclaresAndTheRestAreNamedNotValued(@TempDir Path dir) throws Exception {
    TestPacks.pack(dir, PROBE_WITH_ENV, "probe");
    Path index = dir.resolve("index.json");
    TestPacks.index(dir, index);
    Process p = serve(Map.of("KINDGI_PACK_SERVICE_TOKEN", "t", "PORT", "0", "KINDGI_LOG_FORMAT", "json"),
        "--index", index.toString(), "--host", "127.0.0.1");
    BufferedReader stderr = stderr(p);
    int port = nextRecord(stderr, "listening").get("port").asInt();
    String ctx = "{\"tenantId\":\"t\",\"runId\":\"r\",\"secrets\":{\"DECLARED_KEY\":\"k1\",\"OTHER_KEY\":\"other-value\"}}";
    JsonNode reply = Json.parse(invoke(port, "probe.env", ctx).body());
    assertEquals("{\"DECLARED_KEY\":\"k1\"}", Json.write(reply.at("/output/secrets")));
    JsonNode dropped = nextRecord(stderr, "secrets-dropped");
    assertEquals("[\"OTHER_KEY\"]", Json.write(dropped.get("names")));
    assertEquals("probe.env", dropped.get("toolId").asText());
    assertTrue(!dropped.toString().contains("other-value"));
  }

  @Test
  void theChildJvmEndsWhenItsLauncherIsKilled(@TempDir Path dir) throws Exception {
    TestPacks.pack(dir, PROBE_WITH_ENV, "probe");
    Path index = dir.resolve("index.json");
    TestPacks.index(dir, index);
    Process p = serve(Map.of("KINDGI_PACK_SERVICE_TOKEN", "t", "PORT", "0"), "--index", index.toString(), "--host", "127.0.0.1");
    BufferedReader stderr = stderr(p);
    nextRecord(stderr, "listening");
    ProcessHandle child = p.toHandle().children().findFirst().orElseThrow();
    // SIGKILL without closing our end of the streams (Process.destroyForcibly closes them).
    p.toHandle().destroyForcibly();
    p.waitFor();
    // Its stdin (the launcher's pipe) ends: it drains and stops instead of serving on, orphaned. (Its records
    // can't be read here: the JDK closes our end of the launcher's stderr once the launcher has exited.)
    try {
      child.onExit().get(120, TimeUnit.SECONDS);
    } finally {
      child.destroyForcibly();
    }
    assertTrue(!child.isAlive());
  }

  @Test
  void sigtermDrainsThenExitsZero(@TempDir Path dir) throws Exception {
    TestPacks.pack(dir, "{\"language\":\"java\",\"pack\":{\"id\":\"probe\",\"version\":\"1.0.0\"}}", "probe");
    Path index = dir.resolve("index.json");
    TestPacks.index(dir, index);
    Process p = serve(Map.of("KINDGI_PACK_SERVICE_TOKEN", "t", "PORT", "0"), "--index", index.toString(), "--host", "127.0.0.1");
    BufferedReader stderr = stderr(p);
    JsonNode listening = nextRecord(stderr, "listening");
    int port = listening.get("port").asInt();
    assertEquals("probe", listening.get("packId").asText());
    HttpResponse<String> ready = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz")).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals("{\"status\":\"ready\"}", ready.body());
    // SIGTERM without closing our end of its streams (Process.destroy closes them).
    p.toHandle().destroy();
    nextRecord(stderr, "draining");
    nextRecord(stderr, "stopped");
    assertEquals(0, p.waitFor());
  }
}
