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
