package com.kindgi.pack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.kindgi.pack.internal.Json;
import com.kindgi.pack.internal.PackCatalog;
import com.kindgi.pack.internal.PackLog;
import com.kindgi.pack.internal.PackServer;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import probe.tools.Block;

/** The service in process on 127.0.0.1, port 0, called over real HTTP (the conformance suite runs it as a process). */
class PackServiceTest {
  private static final String TOKEN = "test-token";
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  @TempDir static Path dir;
  private static PackServer server;
  private static int port;

  @BeforeAll
  static void start() throws Exception {
    TestPacks.pack(dir, "{\"language\":\"java\",\"pack\":{\"id\":\"probe\",\"version\":\"1.0.0\"}}", "probe");
    Path index = dir.resolve("index.json");
    TestPacks.index(dir, index);
    PackCatalog catalog = PackCatalog.read(index);
    catalog.resolve(dir);
    PackLog log = PackLog.create(PackLog.Level.error, Map.of(), "json");
    server = new PackServer(new PackServer.State(catalog, TOKEN, 4, true, List.of(), log));
    port = server.listen("127.0.0.1", 0);
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @BeforeEach
  void freshProbe() {
    Block.reset();
  }

  private static HttpResponse<String> invoke(String body, Map<String, String> headers) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/invoke"))
        .POST(HttpRequest.BodyPublishers.ofString(body))
        .header("content-type", "application/json")
        .header("kindgi-pack-token", TOKEN);
    headers.forEach(request::setHeader);
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String call(String tool, String input) {
    return "{\"v\":2,\"kind\":\"invoke\",\"tool\":{\"id\":\"" + tool + "\"},\"input\":" + input + ",\"ctx\":{\"tenantId\":\"t\",\"runId\":\"r\"}}";
  }

  @Test
  void fillsDefaultsBeforeBindingTheRecord() throws Exception {
    HttpResponse<String> reply = invoke(call("probe.echo", "{\"message\":\"ab\"}"), Map.of());
    assertEquals(200, reply.statusCode());
    assertEquals("{\"v\":2,\"kind\":\"result\",\"output\":{\"message\":\"abab\"}}", reply.body());
    assertTrue(reply.headers().firstValue("kindgi-duration-ms").isPresent());
    assertEquals("20260101.1", reply.headers().firstValue("kindgi-artifact-version").orElseThrow());
  }

  @Test
  void refusesBadInputWithAjvShapedIssues() throws Exception {
    JsonNode body = Json.parse(invoke(call("probe.echo", "{\"message\":\"\",\"extra\":true}"), Map.of()).body());
    assertEquals("input-validation-failed", body.get("code").asText());
    assertEquals("{\"instancePath\":\"/message\",\"schemaPath\":\"#/properties/message/minLength\",\"keyword\":\"minLength\","
        + "\"params\":{\"limit\":1},\"message\":\"must NOT have fewer than 1 characters\"}", Json.write(body.at("/issues/0")));
    assertEquals("{\"instancePath\":\"\",\"schemaPath\":\"#/additionalProperties\",\"keyword\":\"additionalProperties\","
        + "\"params\":{\"additionalProperty\":\"extra\"},\"message\":\"must NOT have additional properties\"}", Json.write(body.at("/issues/1")));
  }

  @Test
  void aDeadlineAnswersDeadlineExceededAndInterruptsTheHandler() throws Exception {
    HttpResponse<String> reply = invoke(call("probe.block", "{}"), Map.of("kindgi-timeout-ms", "100"));
    assertEquals("{\"v\":2,\"kind\":\"error\",\"code\":\"deadline-exceeded\",\"message\":\"`probe.block` passed its deadline\","
        + "\"toolId\":\"probe.block\"}", reply.body());
    Block.ended.await();
    assertEquals("interrupted:deadline-exceeded", Block.HOW.get());
  }

  @Test
  void aCallerThatDisconnectsCancelsTheCall() throws Exception {
    byte[] body = call("probe.block", "{}").getBytes(StandardCharsets.UTF_8);
    try (Socket socket = new Socket("127.0.0.1", port)) {
      OutputStream out = socket.getOutputStream();
      out.write(("POST /v1/invoke HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\nkindgi-pack-token: " + TOKEN
          + "\r\ncontent-length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      out.write(body);
      out.flush();
      Block.started.await();
    }
    Block.ended.await();
    assertEquals("interrupted:cancelled", Block.HOW.get());
  }

  @Test
  void checksStatusesInThePublishedOrder() throws Exception {
    HttpRequest get = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/invoke")).GET().build();
    assertEquals(405, HTTP.send(get, HttpResponse.BodyHandlers.ofString()).statusCode());
    HttpRequest noToken = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/invoke"))
        .POST(HttpRequest.BodyPublishers.ofString("{}")).build();
    HttpResponse<String> unauthorised = HTTP.send(noToken, HttpResponse.BodyHandlers.ofString());
    assertEquals(401, unauthorised.statusCode());
    assertEquals("{\"error\":\"Bad pack token\"}", unauthorised.body());
    HttpResponse<String> wrongType = invoke("{}", Map.of("content-type", "text/plain"));
    assertEquals(415, wrongType.statusCode());
    HttpResponse<String> notJson = invoke("{nope", Map.of());
    assertEquals("{\"v\":2,\"kind\":\"error\",\"code\":\"malformed-message\",\"message\":\"Request body is not valid JSON\"}", notJson.body());
    HttpResponse<String> tooBig = invoke("\"" + "x".repeat(10 * 1024 * 1024) + "\"", Map.of());
    assertEquals(413, tooBig.statusCode());
    HttpRequest health = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/healthz?probe=1")).GET().build();
    assertEquals("{\"status\":\"ok\"}", HTTP.send(health, HttpResponse.BodyHandlers.ofString()).body());
  }
}
