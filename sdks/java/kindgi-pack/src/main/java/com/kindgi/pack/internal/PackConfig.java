package com.kindgi.pack.internal;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A Java pack's {@code kindgi.config.json}: {@code "language": "java"}, {@code pack.id},
 * {@code pack.version} and the declared {@code env}.
 */
public record PackConfig(Path file, String packId, String packVersion, List<String> envRequired, List<String> envOptional) {
  /** The config file a Java pack keeps at its root. */
  public static final String FILE_NAME = "kindgi.config.json";
  private static final List<String> MODULE_CONFIGS =
      List.of("kindgi.config.ts", "kindgi.config.mts", "kindgi.config.mjs", "kindgi.config.js", "kindgi.config.cjs");
  private static final Pattern ENV_NAME = Pattern.compile("^[A-Za-z_][A-Za-z0-9_]*$");

  /** Reads and checks the config at {@code packDir}. */
  public static PackConfig load(Path packDir) throws IndexerException {
    Path file = packDir.resolve(FILE_NAME).toAbsolutePath().normalize();
    if (!Files.isRegularFile(file)) {
      throw new IndexerException("config-not-found", "No " + FILE_NAME + " at " + packDir.toAbsolutePath().normalize());
    }
    for (String other : MODULE_CONFIGS) {
      if (Files.exists(packDir.resolve(other))) {
        throw new IndexerException("config-invalid",
            file + ": a JSON config next to " + other + " is ambiguous; keep one config");
      }
    }
    JsonNode root;
    try {
      root = Json.parse(Files.readString(file));
    } catch (IOException e) {
      throw new IndexerException("config-parse-failed", file + ": " + e.getMessage().lines().findFirst().orElse("unreadable"));
    }
    if (!root.isObject()) throw new IndexerException("config-parse-failed", file + ": must be a JSON object");
    JsonNode language = root.get("language");
    if (language == null || !language.isTextual() || !List.of("java", "scala").contains(language.textValue())) {
      throw new IndexerException("config-parse-failed",
          file + ": `language` must be \"java\" or \"scala\", got " + (language == null ? "nothing" : CanonicalJson.compact(language)));
    }
    JsonNode pack = root.get("pack");
    String id = text(pack, "id");
    String version = text(pack, "version");
    if (id == null || version == null) {
      throw new IndexerException("config-parse-failed", file + ": `pack.id` and `pack.version` must be non-empty strings");
    }
    List<String> required = new ArrayList<>();
    List<String> optional = new ArrayList<>();
    JsonNode env = root.get("env");
    if (env != null) {
      String problems = readEnv(env, required, optional);
      if (problems != null) throw new IndexerException("config-invalid", file + ": " + problems);
    }
    return new PackConfig(file, id, version, List.copyOf(required), List.copyOf(optional));
  }

  private static String text(JsonNode node, String field) {
    if (node == null || !node.isObject()) return null;
    JsonNode value = node.get(field);
    return value != null && value.isTextual() && !value.textValue().isEmpty() ? value.textValue() : null;
  }

  /** Checks an {@code env} declaration with the reference's rules; null when it is fine, else every refusal joined by {@code ; }. */
  static String readEnv(JsonNode env, List<String> required, List<String> optional) {
    if (!env.isObject()) {
      return "`env` must be an object with `required` and/or `optional` lists of environment variable names";
    }
    List<String> problems = new ArrayList<>();
    env.fieldNames().forEachRemaining(key -> {
      if (!key.equals("required") && !key.equals("optional")) problems.add("`env` takes only `required` and `optional`, not `" + key + "`");
    });
    Map<String, String> seenIn = new HashMap<>();
    for (String list : List.of("required", "optional")) {
      JsonNode names = env.get(list);
      if (names == null) continue;
      boolean allText = names.isArray();
      if (allText) for (JsonNode n : names) allText &= n.isTextual();
      if (!allText) {
        problems.add("`env." + list + "` must be a list of names");
        continue;
      }
      for (JsonNode n : names) {
        String name = n.textValue();
        if (!ENV_NAME.matcher(name).matches()) {
          problems.add("\"" + name + "\" in `env." + list + "` isn't an environment variable name");
          continue;
        }
        if (name.startsWith("KINDGI_")) {
          problems.add("\"" + name + "\" in `env." + list + "`: `KINDGI_*` names configure Kindgi, not the pack");
          continue;
        }
        String earlier = seenIn.get(name);
        if (list.equals(earlier)) {
          problems.add("\"" + name + "\" is listed twice in `env." + list + "`");
          continue;
        }
        if (earlier != null) {
          problems.add("\"" + name + "\" is in both `env.required` and `env.optional`");
          continue;
        }
        seenIn.put(name, list);
        (list.equals("required") ? required : optional).add(name);
      }
    }
    if (!problems.isEmpty()) return String.join("; ", problems);
    required.sort(null);
    optional.sort(null);
    return null;
  }
}
