package com.kindgi.pack.internal;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The variables the env filter keeps without a declaration: the platform's and the runtimes'. The table is
 * {@code specs/platform-env.json}, the one the TypeScript service reads too, packaged into the jar at build.
 */
public final class PlatformEnv {
  /** Names kept as they are. */
  public static final Set<String> NAMES;
  /** Name prefixes kept, in the published order. */
  public static final List<String> PREFIXES;

  static {
    try (InputStream in = PlatformEnv.class.getResourceAsStream("platform-env.json")) {
      if (in == null) throw new IllegalStateException("platform-env.json is missing from the kindgi-pack jar");
      JsonNode table = Json.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      NAMES = Set.copyOf(strings(table.path("names")));
      PREFIXES = List.copyOf(strings(table.path("prefixes")));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read platform-env.json from the kindgi-pack jar", e);
    }
  }

  private static List<String> strings(JsonNode list) {
    List<String> out = new ArrayList<>();
    for (JsonNode item : list) out.add(item.asText());
    return out;
  }

  private PlatformEnv() {}

  /** True when the filter keeps {@code name} without a declaration. */
  public static boolean kept(String name) {
    if (name.startsWith("KINDGI_") || NAMES.contains(name)) return true;
    for (String prefix : PREFIXES) if (name.startsWith(prefix)) return true;
    return false;
  }

  /** The names the filter drops, sorted by code unit. */
  public static List<String> undeclared(Map<String, String> env, Collection<String> declared) {
    List<String> out = new ArrayList<>();
    for (String name : env.keySet()) if (!declared.contains(name) && !kept(name)) out.add(name);
    out.sort(null);
    return out;
  }

  /** Required names that are unset or empty, sorted. */
  public static List<String> missing(Map<String, String> env, Collection<String> required) {
    List<String> out = new ArrayList<>();
    for (String name : required) {
      String value = env.get(name);
      if (value == null || value.isEmpty()) out.add(name);
    }
    out.sort(null);
    return out;
  }
}
