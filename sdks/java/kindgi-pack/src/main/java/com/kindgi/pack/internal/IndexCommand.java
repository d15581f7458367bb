package com.kindgi.pack.internal;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code Main index}: exit 0 indexed, 1 indexing failed (any file error included: nothing is written), 2 bad
 * arguments. {@code --strict} is accepted for older scripts; every run is strict now.
 */
public final class IndexCommand {
  private IndexCommand() {}

  public static int run(List<String> args, PrintStream out, PrintStream err) {
    Map<String, String> values = new LinkedHashMap<>();
    List<Path> classes = new ArrayList<>();
    boolean json = false;
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      switch (arg) {
        case "--json" -> json = true;
        case "--strict" -> {
          // Every run is strict: a file error writes nothing.
        }
        case "--pack-dir", "--output", "--artifact-version", "--published-at", "--classes" -> {
          if (i + 1 >= args.size() || args.get(i + 1).isEmpty()) {
            err.print("kindgi-pack index: " + arg + " needs a value\n");
            return 2;
          }
          String value = args.get(++i);
          if (arg.equals("--classes")) classes.add(Path.of(value));
          else values.put(arg, value);
        }
        default -> {
          err.print("kindgi-pack index: unknown option " + arg + "\n");
          return 2;
        }
      }
    }
    String packDirText = values.get("--pack-dir");
    if (packDirText == null) {
      err.print("kindgi-pack index: --pack-dir is required\n");
      return 2;
    }
    Path packDir = Path.of(packDirText).toAbsolutePath().normalize();
    Instant publishedAt;
    try {
      publishedAt = publishedAt(values.get("--published-at"));
    } catch (DateTimeParseException e) {
      err.print("kindgi-pack index: --published-at must be an ISO 8601 time such as 2026-09-20T14:32:07.104Z, got \""
          + values.get("--published-at") + "\"\n");
      return 2;
    }
    Path output = values.containsKey("--output") ? packDir.resolve(values.get("--output")) : packDir.resolve("target/index.json");
    if (classes.isEmpty()) classes.add(packDir.resolve("target/classes"));
    List<Path> roots = new ArrayList<>();
    for (Path c : classes) roots.add(packDir.resolve(c).normalize());
    try {
      PackConfig config = PackConfig.load(packDir);
      String artifactVersion = values.getOrDefault("--artifact-version", Indexer.nextArtifactVersion(output, publishedAt));
      Indexer.Report report = Indexer.run(config, new Indexer.Options(packDir, output, roots, artifactVersion, publishedAt));
      for (Indexer.Problem w : report.warnings()) err.print("kindgi-pack index: warning " + w.code() + ": " + w.message() + "\n");
      for (Indexer.Problem f : report.fileErrors()) err.print("kindgi-pack index: " + f.code() + ": " + f.message() + "\n");
      if (!report.written()) {
        // As kindgi-index reports it: one error, coded by the first failing file, listing every one.
        List<Indexer.Problem> failed = new ArrayList<>(report.fileErrors());
        failed.sort(java.util.Comparator.comparing(Indexer.Problem::file));
        List<String> files = new ArrayList<>();
        for (Indexer.Problem f : failed) files.add(f.file() + " (" + f.code() + ")");
        String message = failed.size() + " file(s) could not be indexed, so no index was written: " + String.join(", ", files);
        if (json) out.print(CanonicalJson.pretty(Json.tree(failureJson(failed, message))));
        err.print("kindgi-pack index: " + failed.get(0).code() + ": " + message + "\n");
        return 1;
      }
      if (json) out.print(CanonicalJson.pretty(Json.tree(reportJson(report))));
      if (!json) {
        Map<String, Integer> c = report.counts();
        out.print("Indexed " + c.get("tools") + " tools, " + c.get("guardrails") + " guardrails, " + c.get("agents") + " agents, "
            + c.get("flows") + " flows into " + report.outputPath() + "\n");
      }
      return 0;
    } catch (IndexerException e) {
      if (json) {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("code", e.code());
        error.put("message", e.getMessage());
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("ok", false);
        body.put("error", error);
        out.print(CanonicalJson.pretty(Json.tree(body)));
      }
      err.print("kindgi-pack index: " + e.code() + ": " + e.getMessage() + "\n");
      return 1;
    }
  }

  private static Instant publishedAt(String value) {
    if (value == null) {
      String epoch = System.getenv("SOURCE_DATE_EPOCH");
      if (epoch != null && epoch.matches("^\\d+$")) return Instant.ofEpochSecond(Long.parseLong(epoch));
      return Instant.now();
    }
    if (!value.matches("^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:\\d{2})$")) {
      throw new DateTimeParseException("not ISO", value, 0);
    }
    return OffsetDateTime.parse(value).toInstant();
  }

  private static Map<String, Object> reportJson(Indexer.Report report) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("ok", true);
    out.put("outputPath", report.outputPath().toString());
    out.put("counts", report.counts());
    out.put("warnings", problems(report.warnings()));
    return out;
  }

  private static Map<String, Object> failureJson(List<Indexer.Problem> failed, String message) {
    Map<String, Object> error = new LinkedHashMap<>();
    error.put("code", failed.get(0).code());
    error.put("message", message);
    error.put("file", failed.get(0).file());
    error.put("fileErrors", problems(failed));
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("ok", false);
    out.put("error", error);
    return out;
  }

  private static List<Object> problems(List<Indexer.Problem> list) {
    List<Object> out = new ArrayList<>();
    for (Indexer.Problem p : list) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("code", p.code());
      m.put("file", p.file());
      m.put("message", p.message());
      out.add(m);
    }
    return out;
  }

  static boolean exists(Path p) {
    return Files.exists(p);
  }
}
