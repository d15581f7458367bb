package com.kindgi.pack.internal;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The pack service's settings from its arguments and environment, read as the TypeScript process entry
 * reads them: every problem is collected, so one failed start lists them all.
 */
public record ServiceConfig(
    Path indexPath,
    Path moduleRoot,
    @Nullable Path bundleMapPath,
    @Nullable String host,
    int port,
    String token,
    int maxConcurrency,
    String envCheck,
    String envFilter,
    PackLog.Level logLevel,
    Map<String, PackLog.Level> logLevels,
    String logFormat) {
  /** The index a pack image serves when neither {@code --index} nor {@code KINDGI_PACK_INDEX} names one. */
  public static final String DEFAULT_INDEX = "/app/index.json";
  private static final Map<String, String> FLAGS =
      Map.of("--index", "a path", "--module-root", "a directory", "--bundle-map", "a path", "--host", "an address");
  private static final Pattern PRINTABLE = Pattern.compile("^[\\x21-\\x7e]+$");

  /** The settings, or the problems (thrown as one {@link Invalid}). */
  public static ServiceConfig read(List<String> argv, Map<String, String> env, Path cwd) throws Invalid {
    List<String> problems = new ArrayList<>();
    Map<String, String> args = readArgs(argv, problems);
    String index = args.getOrDefault("--index", blank(env.get("KINDGI_PACK_INDEX")) ? DEFAULT_INDEX : env.get("KINDGI_PACK_INDEX"));
    Path indexPath = cwd.resolve(index).toAbsolutePath().normalize();
    Path moduleRoot = args.containsKey("--module-root")
        ? cwd.resolve(args.get("--module-root")).toAbsolutePath().normalize()
        : indexPath.getParent();
    Path bundleMap = args.containsKey("--bundle-map") ? cwd.resolve(args.get("--bundle-map")).toAbsolutePath().normalize() : null;
    int port = readPort(env, problems);
    String token = readToken(env, problems);
    int concurrency = readConcurrency(env, problems);
    String envCheck = readChoice(env, "KINDGI_PACK_ENV_CHECK", "strict", "warn", problems);
    String envFilter = readChoice(env, "KINDGI_PACK_ENV_FILTER", "on", "off", problems);
    PackLog.Level level = PackLog.Level.info;
    String rawLevel = env.get("KINDGI_LOG_LEVEL");
    if (!blank(rawLevel)) {
      PackLog.Level parsed = PackLog.Level.parse(rawLevel.trim().toLowerCase());
      if (parsed == null) problems.add("KINDGI_LOG_LEVEL must be one of debug, info, warn, error, not " + Json.write(rawLevel));
      else level = parsed;
    }
    Map<String, PackLog.Level> levels = new LinkedHashMap<>();
    for (String entry : (env.getOrDefault("KINDGI_LOG_LEVELS", "")).split(",")) {
      if (entry.trim().isEmpty()) continue;
      String[] parts = entry.split("=");
      PackLog.Level parsed = parts.length == 2 ? PackLog.Level.parse(parts[1].trim().toLowerCase()) : null;
      if (parts.length != 2 || parts[0].trim().isEmpty() || parsed == null) {
        problems.add("KINDGI_LOG_LEVELS takes subsystem=level pairs (levels: debug, info, warn, error), not " + Json.write(entry));
        continue;
      }
      levels.put(parts[0].trim().toLowerCase(), parsed);
    }
    String format = "auto";
    String rawFormat = env.get("KINDGI_LOG_FORMAT");
    if (!blank(rawFormat)) {
      String f = rawFormat.trim().toLowerCase();
      if (List.of("auto", "json", "pretty").contains(f)) format = f;
      else problems.add("KINDGI_LOG_FORMAT must be `auto`, `json` or `pretty`, not " + Json.write(rawFormat));
    }
    if (!problems.isEmpty()) throw new Invalid(problems, level);
    return new ServiceConfig(indexPath, moduleRoot, bundleMap, args.get("--host"), port, token, concurrency, envCheck,
        envFilter, level, levels, format);
  }

  /** The problems of a configuration that can't start. */
  public static final class Invalid extends Exception {
    public final List<String> problems;

    Invalid(List<String> problems, PackLog.Level level) {
      super(String.join("; ", problems));
      this.problems = List.copyOf(problems);
    }
  }

  private static boolean blank(@Nullable String s) {
    return s == null || s.isEmpty();
  }

  private static Map<String, String> readArgs(List<String> argv, List<String> problems) {
    Map<String, String> values = new LinkedHashMap<>();
    for (int i = 0; i < argv.size(); i++) {
      String arg = argv.get(i);
      int eq = arg.indexOf('=');
      String name = eq > 0 ? arg.substring(0, eq) : arg;
      if (!FLAGS.containsKey(name)) {
        problems.add("Unknown argument " + Json.write(arg));
        continue;
      }
      String value = null;
      if (eq > 0) value = arg.substring(eq + 1);
      else if (i + 1 < argv.size() && !FLAGS.containsKey(argv.get(i + 1))) value = argv.get(++i);
      if (value == null || value.trim().isEmpty()) {
        problems.add(name + " needs " + FLAGS.get(name));
        continue;
      }
      values.put(name, value);
    }
    return values;
  }

  private static String readToken(Map<String, String> env, List<String> problems) {
    String token = env.getOrDefault("KINDGI_PACK_SERVICE_TOKEN", "").trim();
    if (token.isEmpty()) {
      problems.add("KINDGI_PACK_SERVICE_TOKEN is required");
    } else if (!PRINTABLE.matcher(token).matches()) {
      problems.add("KINDGI_PACK_SERVICE_TOKEN may hold only printable ASCII without spaces (it travels in an HTTP header). "
          + "Use a random value such as `openssl rand -hex 32`.");
    }
    return token;
  }

  private static int readPort(Map<String, String> env, List<String> problems) {
    String raw = env.get("PORT");
    if (blank(raw)) return 8080;
    int port = raw.matches("^\\d{1,5}$") ? Integer.parseInt(raw) : -1;
    if (port < 0 || port > 65535) problems.add("PORT must be a port number, got " + Json.write(raw));
    return port;
  }

  private static int readConcurrency(Map<String, String> env, List<String> problems) {
    String raw = env.get("KINDGI_PACK_SERVICE_MAX_CONCURRENCY");
    if (blank(raw)) return 32;
    String t = raw.trim();
    int value = -1;
    if (t.matches("^\\d{1,9}$")) value = Integer.parseInt(t);
    if (value < 1) problems.add("KINDGI_PACK_SERVICE_MAX_CONCURRENCY must be a positive integer, got " + Json.write(raw));
    return value;
  }

  private static String readChoice(Map<String, String> env, String name, String first, String second, List<String> problems) {
    String raw = env.get(name);
    if (blank(raw)) return first;
    if (raw.equals(first) || raw.equals(second)) return raw;
    problems.add(name + " must be `" + first + "` or `" + second + "`, not " + Json.write(raw));
    return first;
  }
}
