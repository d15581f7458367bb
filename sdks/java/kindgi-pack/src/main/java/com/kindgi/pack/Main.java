package com.kindgi.pack;

import com.kindgi.pack.internal.IndexCommand;
import com.kindgi.pack.internal.ServeCommand;
import java.util.Arrays;
import java.util.List;

/**
 * {@code java -cp … com.kindgi.pack.Main index|serve …}: the indexer that writes a Java pack's
 * {@code index.json}, and the pack service that serves it over protocol v2.
 */
public final class Main {
  private static final String USAGE = """
      Usage: java -cp <classpath> com.kindgi.pack.Main <command> [options]

      Commands:
        index   write the pack's index.json (--pack-dir <dir> [--output <path>] [--classes <dir>]...
                [--artifact-version <str>] [--published-at <iso>] [--json]); any file error writes nothing
        serve   run the pack service in a child JVM with the filtered environment ([--index <path>]
                [--module-root <dir>] [--host <address>] [--token-fd <n>]; PORT, KINDGI_PACK_SERVICE_TOKEN,
                KINDGI_PACK_SERVICE_MAX_CONCURRENCY, KINDGI_PACK_ENV_CHECK, KINDGI_PACK_ENV_FILTER,
                KINDGI_PACK_JVM_DEFAULTS, KINDGI_LOG_LEVEL, KINDGI_LOG_FORMAT)
      """;

  private Main() {}

  public static void main(String[] args) {
    System.exit(run(args));
  }

  /** Runs a command; returns its exit code ({@code serve} returns only when it could not start). */
  public static int run(String[] args) {
    if (args.length == 0 || args[0].equals("--help") || args[0].equals("help")) {
      (args.length == 0 ? System.err : System.out).print(USAGE);
      return args.length == 0 ? 2 : 0;
    }
    List<String> rest = Arrays.asList(args).subList(1, args.length);
    return switch (args[0]) {
      case "index" -> IndexCommand.run(rest, System.out, System.err);
      case "serve" -> ServeCommand.run(rest);
      default -> {
        System.err.print("kindgi-pack: unknown command \"" + args[0] + "\"\n\n" + USAGE);
        yield 2;
      }
    };
  }
}
