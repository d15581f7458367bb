package com.kindgi.pack;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.kindgi.pack.internal.Json;
import com.kindgi.pack.internal.PlatformEnv;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The env filter's table is the repository's specs/platform-env.json, the one TypeScript reads. */
class PlatformEnvTest {
  @Test
  void theTableIsTheSharedSpecFile() throws Exception {
    JsonNode spec = Json.parse(Files.readString(Path.of("../../../specs/platform-env.json")));
    Set<String> names = new HashSet<>();
    spec.path("names").forEach(n -> names.add(n.asText()));
    List<String> prefixes = new ArrayList<>();
    spec.path("prefixes").forEach(n -> prefixes.add(n.asText()));
    assertEquals(names, PlatformEnv.NAMES);
    assertEquals(prefixes, PlatformEnv.PREFIXES);
  }
}
