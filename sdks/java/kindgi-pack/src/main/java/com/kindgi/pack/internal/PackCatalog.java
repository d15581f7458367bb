package com.kindgi.pack.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.kindgi.pack.Guardrail;
import com.kindgi.pack.Tool;
import java.lang.reflect.Field;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What a pack service serves, resolved from its index at boot: each tool and check bound to the
 * {@code public static final} field of the class its module path names. Loading a class runs its
 * static initialisers: the JVM's prewarm.
 */
public final class PackCatalog {
  /** A tool the index lists, with its schemas as the index has them. */
  /** A tool as served; {@code secrets} are the names its {@code needsSpec} declares, the only ones its handler gets. */
  public record ServedTool(String id, @Nullable String version, JsonNode input, JsonNode output, Tool<?, ?> tool, Set<String> secrets) {}

  /** A check the index lists. */
  public record ServedCheck(String checkId, @Nullable JsonNode configSchema, Guardrail<?> guardrail) {}

  /** A boot that can't go on, with every problem. */
  public static final class BootException extends Exception {
    public final List<String> problems;

    BootException(List<String> problems) {
      super(String.join("; ", problems));
      this.problems = List.copyOf(problems);
    }
  }

  public final JsonNode index;
  public final String packId;
  public final String packVersion;
  public final String artifactVersion;
  public final List<String> envRequired = new ArrayList<>();
  public final List<String> envOptional = new ArrayList<>();
  public final Map<String, List<ServedTool>> tools = new LinkedHashMap<>();
  public final Map<String, ServedCheck> checks = new LinkedHashMap<>();

  private PackCatalog(JsonNode index) {
    this.index = index;
    this.packId = index.path("packId").asText();
    this.packVersion = index.path("packVersion").asText();
    this.artifactVersion = index.path("artifactVersion").asText();
    index.path("env").path("required").forEach(n -> envRequired.add(n.asText()));
    index.path("env").path("optional").forEach(n -> envOptional.add(n.asText()));
  }

  /** Reads the index. */
  public static PackCatalog read(Path indexPath) throws BootException {
    JsonNode index;
    try {
      index = Json.parse(Files.readString(indexPath));
    } catch (Exception e) {
      throw new BootException(List.of("Cannot read the pack index: " + indexPath + ": " + firstLine(e)));
    }
    if (!index.isObject() || index.path("v").asInt(-1) != 1 || !index.path("v").isIntegralNumber()) {
      throw new BootException(List.of("Cannot read the pack index: " + indexPath + ": expected an index with v 1, got v "
          + (index.has("v") ? CanonicalJson.compact(index.get("v")) : "undefined")));
    }
    if (!index.path("packId").isTextual() || !index.path("tools").isArray() || !index.path("guardrails").isArray()) {
      throw new BootException(List.of("Cannot read the pack index: " + indexPath + ": it needs packId, tools and guardrails"));
    }
    return new PackCatalog(index);
  }

  /**
   * Binds every tool and check to its class: a class that isn't there is "Missing module: <path>", one
   * whose loading fails is "<id>: <message>". {@code moduleRoot}'s {@code target/classes}, when present,
   * is searched after the JVM's classpath.
   */
  /** The secret names a tool entry's {@code needsSpec.secrets} declares. */
  static Set<String> declaredSecrets(JsonNode entry) {
    Set<String> names = new HashSet<>();
    entry.path("needsSpec").path("secrets").fieldNames().forEachRemaining(names::add);
    return Set.copyOf(names);
  }

  public void resolve(Path moduleRoot) throws BootException {
    List<String> problems = new ArrayList<>();
    ClassLoader loader = loader(moduleRoot);
    for (JsonNode entry : index.path("tools")) {
      String id = entry.path("id").asText();
      String modulePath = entry.path("modulePath").asText();
      if (entry.has("spec")) continue;
      String version = entry.path("version").isTextual() ? entry.path("version").asText() : null;
      Object found = find(loader, id, modulePath, problems, o -> o instanceof Tool<?, ?> t && t.id().equals(id)
          && (version == null || t.version() == null || version.equals(t.version())));
      if (found == null) continue;
      tools.computeIfAbsent(id, k -> new ArrayList<>())
          .add(new ServedTool(id, version, entry.path("input"), entry.has("output") ? entry.get("output") : Json.tree(Map.of()),
              (Tool<?, ?>) found, declaredSecrets(entry)));
    }
    for (JsonNode entry : index.path("guardrails")) {
      String id = entry.path("id").asText();
      String checkId = entry.path("checkId").isTextual() ? entry.path("checkId").asText() : id;
      String modulePath = entry.path("checkModulePath").asText();
      Object found = find(loader, id, modulePath, problems, o -> o instanceof Guardrail<?> g && g.checkId().equals(checkId));
      if (found == null) continue;
      checks.putIfAbsent(checkId, new ServedCheck(checkId, entry.get("configSchema"), (Guardrail<?>) found));
    }
    if (!problems.isEmpty()) throw new BootException(problems);
  }

  private static @Nullable Object find(ClassLoader loader, String id, String modulePath, List<String> problems,
      java.util.function.Predicate<Object> matches) {
    String className = Indexer.className(modulePath);
    if (className == null) {
      problems.add("Missing module: " + modulePath);
      return null;
    }
    Class<?> type;
    try {
      type = Class.forName(className, true, loader);
    } catch (ClassNotFoundException | NoClassDefFoundError e) {
      problems.add("Missing module: " + modulePath);
      return null;
    } catch (ExceptionInInitializerError e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      problems.add(id + ": " + cause.getClass().getSimpleName() + ": " + cause.getMessage());
      return null;
    } catch (LinkageError e) {
      problems.add(id + ": " + e.getClass().getSimpleName() + ": " + e.getMessage());
      return null;
    }
    for (Field field : type.getDeclaredFields()) {
      if (!Indexer.isPublicStaticFinal(field)) continue;
      try {
        Object value = field.get(null);
        if (matches.test(value)) return value;
      } catch (IllegalAccessException e) {
        // Not readable: not a primitive the index can name.
      }
    }
    problems.add(id + ": " + modulePath + " has no public static final field holding it");
    return null;
  }

  private static ClassLoader loader(Path moduleRoot) {
    ClassLoader parent = Thread.currentThread().getContextClassLoader();
    Path classes = moduleRoot.resolve("target/classes");
    if (!Files.isDirectory(classes)) return parent;
    try {
      return new URLClassLoader(new URL[] {classes.toUri().toURL()}, parent);
    } catch (java.net.MalformedURLException e) {
      return parent;
    }
  }

  private static String firstLine(Exception e) {
    String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    return m.lines().findFirst().orElse(m);
  }

  /** {@code /v1/info}'s body. */
  public Map<String, Object> info(List<String> missingEnv) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("protocol", 2);
    out.put("packId", packId);
    out.put("packVersion", packVersion);
    out.put("artifactVersion", artifactVersion);
    List<Object> toolRefs = new ArrayList<>();
    for (JsonNode entry : index.path("tools")) {
      Map<String, Object> ref = new LinkedHashMap<>();
      ref.put("id", entry.path("id").asText());
      if (entry.path("version").isTextual()) ref.put("version", entry.path("version").asText());
      toolRefs.add(ref);
    }
    List<Object> checkIds = new ArrayList<>();
    for (JsonNode entry : index.path("guardrails")) {
      checkIds.add(entry.path("checkId").isTextual() ? entry.path("checkId").asText() : entry.path("id").asText());
    }
    out.put("tools", toolRefs);
    out.put("checks", checkIds);
    out.put("missingEnv", missingEnv);
    return out;
  }
}
