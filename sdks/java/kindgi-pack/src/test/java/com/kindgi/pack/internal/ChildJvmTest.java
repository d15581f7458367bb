package com.kindgi.pack.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What the launcher gives the pack's JVM: its environment and its JVM options. */
class ChildJvmTest {
  @Test
  void theChildKeepsDeclaredAndPlatformNamesAndNothingKindgi() {
    Map<String, String> env = Map.of("PATH", "/bin", "LC_ALL", "C", "DECLARED", "1", "OTHER", "2",
        "KINDGI_PACK_SERVICE_TOKEN", "t", "KINDGI_LOG_LEVEL", "debug");
    assertEquals(Map.of("PATH", "/bin", "LC_ALL", "C", "DECLARED", "1"), ChildJvm.childEnv(env, Set.of("DECLARED")));
    Map<String, String> off = ChildJvm.childEnv(env, null);
    assertTrue(!off.containsKey("KINDGI_PACK_SERVICE_TOKEN"));
    assertEquals(env.size() - 1, off.size());
  }

  @Test
  void theContainerDefaultsFillOnlyWhatTheUserLeftUnset() {
    assertEquals(List.of("-XX:+UseSerialGC", "-Xms32m", "-XX:MaxRAMPercentage=50", "-Xss512k"),
        ChildJvm.containerDefaults(List.of("-Dfoo=bar"), Set.of()));
    assertEquals(List.of("-XX:+UseSerialGC", "-Xms32m", "-Xss512k"),
        ChildJvm.containerDefaults(List.of("-Xmx512m"), Set.of()));
    assertEquals(List.of("-Xms32m", "-XX:MaxRAMPercentage=50", "-Xss512k"),
        ChildJvm.containerDefaults(List.of(), Set.of("-XX:+UseG1GC")));
  }
}
