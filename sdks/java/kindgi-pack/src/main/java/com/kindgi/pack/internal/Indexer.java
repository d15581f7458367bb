package com.kindgi.pack.internal;

import com.kindgi.pack.Agent;
import com.kindgi.pack.Flow;
import com.kindgi.pack.Guardrail;
import com.kindgi.pack.Tool;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Writes a Java pack's {@code index.json}: loads the compiled classes of its {@code tools},
 * {@code guardrails}, {@code agents} and {@code flows} packages, reads their {@code public static final}
 * primitives, and writes the canonical index. A class that can't be indexed is a file error, and any file
 * error writes nothing (as {@code kindgi-index} refuses a partial pack): an index that silently lacks a tool
 * would deploy without it.
 */
public final class Indexer {
  /** The four primitive kinds, named as the index's lists and the packages they live in. */
  public static final List<String> KINDS = List.of("tools", "guardrails", "agents", "flows");
  private static final DateTimeFormatter ISO_MILLIS =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("uuuuMMdd").withZone(ZoneOffset.UTC);

  /** What to index. */
  public record Options(Path packDir, Path output, List<Path> classRoots, String artifactVersion, Instant publishedAt) {}

  /** A class left out of the index, or something to change that didn't stop it. */
  public record Problem(String code, String file, String message) {}

  /** What a run wrote and found; with file errors, nothing was written. */
  public record Report(Path outputPath, Map<String, Integer> counts, List<Problem> warnings, List<Problem> fileErrors) {
    /** True when the index was written (no file errors). */
    public boolean written() {
      return fileErrors.isEmpty();
    }
  }

  private Indexer() {}

  /** The source path of a top-level class, relative to the pack root: what the index names as its module. */
  public static String modulePath(String className) {
    return "src/main/java/" + className.replace('.', '/') + ".java";
  }

  /** The class a module path names (the inverse of {@link #modulePath}), or null when it names none. */
  public static String className(String modulePath) {
    String path = modulePath.replace('\\', '/');
    int at = path.indexOf("src/main/java/");
    if (at >= 0) path = path.substring(at + "src/main/java/".length());
    if (!path.endsWith(".java")) return null;
    return path.substring(0, path.length() - 5).replace('/', '.');
  }

  /** The kind a package puts its classes in (the deepest of tools/guardrails/agents/flows), or null. */
  static String kindOf(String className) {
    String[] parts = className.split("\\.");
    for (int i = parts.length - 2; i >= 0; i--) if (KINDS.contains(parts[i])) return parts[i];
    return null;
  }

  public static Report run(PackConfig config, Options options) throws IndexerException {
    List<String> classes = discover(options.classRoots());
    if (classes.isEmpty()) {
      throw new IndexerException("discovery-empty", "No compiled classes in tools, guardrails, agents or flows packages under "
          + options.classRoots() + ": compile the pack first (mvn compile)");
    }
    List<Problem> fileErrors = new ArrayList<>();
    List<Problem> warnings = new ArrayList<>();
    Map<String, List<Map<String, Object>>> lists = new LinkedHashMap<>();
    Map<String, String> firstFile = new LinkedHashMap<>();
    for (String kind : KINDS) lists.put(kind, new ArrayList<>());
    ClassLoader parent = Thread.currentThread().getContextClassLoader();
    try (URLClassLoader loader = new URLClassLoader(urls(options.classRoots()), parent)) {
      for (String className : classes) {
        String file = modulePath(className);
        try {
          for (Found found : ClassScan.scan(loader, className, kindOf(className))) {
            Map<String, Object> entry = entry(found, className, file, config.packVersion());
            String key = found.kind() + "\u0000" + entry.get("id");
            String earlier = firstFile.putIfAbsent(key, file);
            if (earlier != null) {
              fileErrors.add(new Problem("manifest-validation-failed", file, file + ": " + found.kind().replaceAll("s$", "")
                  + " id \"" + entry.get("id") + "\" is already defined by " + earlier + "; the first is kept"));
              continue;
            }
            lists.get(found.kind()).add(entry);
            if (found.value() instanceof Guardrail<?> g && !g.checkId().startsWith(config.packId() + ".")) {
              warnings.add(new Problem("check-id-unprefixed", file, file + ": check \"" + g.checkId()
                  + "\" does not start with the pack id \"" + config.packId() + ".\"; packs in a tenant share one space of check names, so name it \""
                  + config.packId() + ".checks.<name>\""));
            }
            if (found.kind().equals("guardrails")) warnings.addAll(unsetConfigFields(entry, file));
          }
        } catch (ClassScan.ScanException e) {
          fileErrors.add(new Problem(e.code, file, file + ": " + e.getMessage()));
        } catch (IndexEntries.EntryException e) {
          fileErrors.add(new Problem(e.code, file, file + ": " + e.getMessage()));
        }
      }
    } catch (IOException e) {
      throw new IndexerException("discovery-empty", "Could not read the compiled classes: " + e.getMessage());
    }
    Map<String, Object> index = new LinkedHashMap<>();
    index.put("v", 1);
    index.put("packId", config.packId());
    index.put("packVersion", config.packVersion());
    index.put("artifactVersion", options.artifactVersion());
    index.put("publishedAt", ISO_MILLIS.format(options.publishedAt()));
    Map<String, Integer> counts = new LinkedHashMap<>();
    for (String kind : KINDS) {
      List<Map<String, Object>> list = lists.get(kind);
      list.sort(Comparator.comparing(e -> (String) e.get("id")));
      index.put(kind, list);
      counts.put(kind, list.size());
    }
    if (!config.envRequired().isEmpty() || !config.envOptional().isEmpty()) {
      index.put("env", Map.of("required", config.envRequired(), "optional", config.envOptional()));
    }
    if (fileErrors.isEmpty()) write(options.output(), CanonicalJson.canonical(Json.tree(index)));
    return new Report(options.output(), counts, warnings, fileErrors);
  }

  record Found(String kind, String field, Object value) {}

  /** The entry of one primitive; a problem with it names the class and field that hold it. */
  private static Map<String, Object> entry(Found found, String className, String file, String packVersion)
      throws IndexEntries.EntryException {
    try {
      return switch (found.kind()) {
        case "tools" -> IndexEntries.tool((Tool<?, ?>) found.value(), file);
        case "guardrails" -> IndexEntries.guardrail((Guardrail<?>) found.value(), file);
        case "agents" -> IndexEntries.agent((Agent) found.value(), file, packVersion);
        default -> IndexEntries.flow((Flow) found.value(), file, packVersion);
      };
    } catch (IndexEntries.EntryException e) {
      String where = className.substring(className.lastIndexOf('.') + 1) + "." + found.field();
      throw new IndexEntries.EntryException(e.code, where + ": " + e.getMessage());
    }
  }

  /**
   * Required config fields that neither a default nor the guardrail's {@code set("config")} values give: every
   * evaluation would fail {@code input-validation-failed}, so the author hears of it at index time.
   */
  @SuppressWarnings("unchecked")
  static List<Problem> unsetConfigFields(Map<String, Object> entry, String file) {
    if (!(entry.get("configSchema") instanceof Map<?, ?> schema) || !(schema.get("required") instanceof List<?> required)) {
      return List.of();
    }
    Map<String, Object> values = entry.get("config") instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    List<Problem> out = new ArrayList<>();
    for (Object name : required) {
      if (values.containsKey(name)) continue;
      out.add(new Problem("config-field-unset", file, file + ": guardrail \"" + entry.get("id") + "\" config field \"" + name
          + "\" is required but has no default and no set(\"config\") value, so every evaluation fails input-validation-failed:"
          + " give it @JsonProperty(defaultValue = …) or a value in set(\"config\", …)"));
    }
    return out;
  }

  private static URL[] urls(List<Path> roots) throws IOException {
    URL[] urls = new URL[roots.size()];
    for (int i = 0; i < roots.size(); i++) urls[i] = roots.get(i).toUri().toURL();
    return urls;
  }

  /** Top-level classes in primitive packages, sorted by name so file order never depends on the filesystem. */
  private static List<String> discover(List<Path> roots) throws IndexerException {
    List<String> out = new ArrayList<>();
    for (Path root : roots) {
      if (!Files.isDirectory(root)) continue;
      try (Stream<Path> files = Files.walk(root)) {
        files.filter(p -> p.toString().endsWith(".class")).forEach(p -> {
          String rel = root.relativize(p).toString().replace('\\', '/');
          String name = rel.substring(0, rel.length() - ".class".length()).replace('/', '.');
          if (name.contains("$") || name.endsWith("package-info") || name.endsWith("module-info")) return;
          // Tests are never indexed, even from a class root that holds them.
          if (name.endsWith("Test") || name.endsWith("IT")) return;
          if (kindOf(name) != null && !out.contains(name)) out.add(name);
        });
      } catch (IOException e) {
        throw new IndexerException("discovery-empty", "Could not walk " + root + ": " + e.getMessage());
      }
    }
    out.sort(null);
    return out;
  }

  private static void write(Path output, String text) throws IndexerException {
    try {
      Path dir = output.toAbsolutePath().getParent();
      Files.createDirectories(dir);
      Path tmp = dir.resolve(".tmp-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
      Files.writeString(tmp, text);
      Files.move(tmp, output, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new IndexerException("output-write-failed", "Could not write " + output + ": " + e);
    }
  }

  /** {@code YYYYMMDD.N}: N one more than the existing index's when that is from the same UTC day, else 1. */
  public static String nextArtifactVersion(Path output, Instant now) {
    // Not BASIC_ISO_DATE: with a zone it appends the offset ("20261201Z").
    String day = DAY.format(now);
    try {
      String previous = Json.parse(Files.readString(output)).path("artifactVersion").asText("");
      java.util.regex.Matcher m = java.util.regex.Pattern.compile("^(\\d{8})\\.(\\d+)$").matcher(previous);
      if (m.matches() && m.group(1).equals(day)) return day + "." + (Long.parseLong(m.group(2)) + 1);
    } catch (IOException | RuntimeException e) {
      // No readable earlier index: the day's first.
    }
    return day + ".1";
  }

  /** Why a field is ignored, for the file error of a primitive held the wrong way. */
  static boolean isPublicStaticFinal(Field field) {
    int m = field.getModifiers();
    return Modifier.isPublic(m) && Modifier.isStatic(m) && Modifier.isFinal(m);
  }
}
