package com.kindgi.pack;

import com.kindgi.pack.internal.Indexer;
import com.kindgi.pack.internal.PackConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;

/** Builds a pack folder from some packages of the compiled test classes, and indexes it. */
final class TestPacks {
  private TestPacks() {}

  static Path testClasses() throws Exception {
    return Path.of(acme.tools.Greet.class.getProtectionDomain().getCodeSource().getLocation().toURI());
  }

  /** A pack at {@code dir}: its config, and {@code packages} (top-level, e.g. "acme") copied into target/classes. */
  static Path pack(Path dir, String config, String... packages) throws Exception {
    Files.writeString(dir.resolve("kindgi.config.json"), config);
    Path classes = dir.resolve("target/classes");
    for (String pkg : packages) {
      Path from = testClasses().resolve(pkg);
      try (Stream<Path> files = Files.walk(from)) {
        for (Path f : (Iterable<Path>) files::iterator) {
          Path to = classes.resolve(testClasses().relativize(f).toString());
          if (Files.isDirectory(f)) Files.createDirectories(to);
          else Files.copy(f, to);
        }
      }
    }
    return dir;
  }

  static Indexer.Report index(Path packDir, Path output) throws Exception {
    PackConfig config = PackConfig.load(packDir);
    return Indexer.run(config, new Indexer.Options(packDir, output, List.of(packDir.resolve("target/classes")), "20260101.1",
        Instant.parse("2026-01-02T03:04:05.678Z")));
  }

  static String read(Path p) throws IOException {
    return Files.readString(p);
  }
}
