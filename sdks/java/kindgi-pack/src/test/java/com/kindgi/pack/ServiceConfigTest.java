package com.kindgi.pack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.kindgi.pack.internal.ServiceConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ServiceConfigTest {
  private static final Path CWD = Path.of("/srv/pack");

  @Test
  void readsTheDefaultsAndTheFlags() throws Exception {
    ServiceConfig config = ServiceConfig.read(List.of("--index", "build/index.json", "--host=127.0.0.1"),
        Map.of("KINDGI_PACK_SERVICE_TOKEN", "  secret-token  "), CWD);
    assertEquals(Path.of("/srv/pack/build/index.json"), config.indexPath());
    assertEquals(Path.of("/srv/pack/build"), config.moduleRoot());
    assertEquals("127.0.0.1", config.host());
    assertEquals("secret-token", config.token());
    assertEquals(8080, config.port());
    assertEquals(32, config.maxConcurrency());
    assertEquals("strict", config.envCheck());
    assertEquals("on", config.envFilter());
    ServiceConfig fromEnv = ServiceConfig.read(List.of(), Map.of("KINDGI_PACK_SERVICE_TOKEN", "t", "KINDGI_PACK_INDEX", "i.json",
        "PORT", "0", "KINDGI_PACK_ENV_CHECK", "warn"), CWD);
    assertEquals(Path.of("/srv/pack/i.json"), fromEnv.indexPath());
    assertEquals(0, fromEnv.port());
    assertEquals("warn", fromEnv.envCheck());
    assertEquals(Path.of(ServiceConfig.DEFAULT_INDEX), ServiceConfig.read(List.of(), Map.of("KINDGI_PACK_SERVICE_TOKEN", "t"), CWD).indexPath());
  }

  @Test
  void collectsEveryProblemWithTheReferenceMessages() {
    ServiceConfig.Invalid invalid = assertThrows(ServiceConfig.Invalid.class, () -> ServiceConfig.read(List.of("--host", "", "--nope"),
        Map.of("PORT", "eighty", "KINDGI_PACK_SERVICE_MAX_CONCURRENCY", "0", "KINDGI_PACK_ENV_CHECK", "loose",
            "KINDGI_PACK_ENV_FILTER", "maybe"), CWD));
    assertEquals(List.of(
        "--host needs an address",
        "Unknown argument \"--nope\"",
        "PORT must be a port number, got \"eighty\"",
        "KINDGI_PACK_SERVICE_TOKEN is required",
        "KINDGI_PACK_SERVICE_MAX_CONCURRENCY must be a positive integer, got \"0\"",
        "KINDGI_PACK_ENV_CHECK must be `strict` or `warn`, not \"loose\"",
        "KINDGI_PACK_ENV_FILTER must be `on` or `off`, not \"maybe\""), invalid.problems);
    ServiceConfig.Invalid spaced = assertThrows(ServiceConfig.Invalid.class,
        () -> ServiceConfig.read(List.of(), Map.of("KINDGI_PACK_SERVICE_TOKEN", "two words"), CWD));
    assertEquals(List.of("KINDGI_PACK_SERVICE_TOKEN may hold only printable ASCII without spaces (it travels in an HTTP header). "
        + "Use a random value such as `openssl rand -hex 32`."), spaced.problems);
  }
}
