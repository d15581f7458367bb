package com.kindgi.pack.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The pack service's isolation: a JVM can't remove variables from its own environment, so {@code Main serve}
 * re-executes itself as a child JVM whose environment holds only the pack's declared names and the platform's
 * ({@link PlatformEnv}), nothing {@code KINDGI_*}. The service's own settings ({@code KINDGI_*}, the token
 * among them) reach the child as one JSON line on its stdin, which stays open: its end tells the child that
 * the launcher is gone. The launcher relays SIGTERM and SIGINT and exits with the child's code.
 */
public final class ChildJvm {
  /** The first argument of a child's {@code serve}: read the settings from stdin. */
  public static final String CHILD_FLAG = "--kindgi-child";
  /** Each default with the option prefixes that mean the user chose that setting already. */
  private static final String[][] CONTAINER_DEFAULTS = {
    {"-XX:+UseSerialGC", "-XX:+Use", "-XX:-UseSerialGC"},
    {"-Xms32m", "-Xms", "-XX:InitialHeapSize", "-XX:InitialRAMPercentage", "-XX:MinHeapSize"},
    {"-XX:MaxRAMPercentage=50", "-Xmx", "-XX:MaxHeapSize", "-XX:MaxRAMPercentage", "-XX:MaxRAM="},
    {"-Xss512k", "-Xss", "-XX:ThreadStackSize"},
  };
  private static final String TOKEN_VAR = "KINDGI_PACK_SERVICE_TOKEN";
  /** Longest settings line a child reads; the service's settings are a few hundred bytes. */
  private static final int MAX_SETTINGS_BYTES = 1 << 20;

  private ChildJvm() {}

  /**
   * What the child's environment keeps of {@code env}: declared and platform names, never {@code KINDGI_*};
   * with {@code declared} null (the filter off) every name but the token.
   */
  public static Map<String, String> childEnv(Map<String, String> env, @Nullable Set<String> declared) {
    Map<String, String> out = new TreeMap<>();
    env.forEach((name, value) -> {
      boolean keep = declared == null ? !name.equals(TOKEN_VAR)
          : !name.startsWith("KINDGI_") && (declared.contains(name) || PlatformEnv.kept(name));
      if (keep) out.put(name, value);
    });
    return out;
  }

  /** The launcher's settings for the child: its {@code KINDGI_*} variables, the log format made concrete. */
  static Map<String, String> settings(Map<String, String> env, String logFormat) {
    Map<String, String> out = new TreeMap<>();
    env.forEach((name, value) -> {
      if (name.startsWith("KINDGI_")) out.put(name, value);
    });
    // "auto" looks for a terminal, which the child (stdin a pipe) never has.
    if (logFormat.equals("auto")) out.put("KINDGI_LOG_FORMAT", System.console() != null ? "pretty" : "json");
    return out;
  }

  /** Starts the child with {@code childEnv}, hands it the settings, relays signals; returns its exit code. */
  static int run(List<String> args, Map<String, String> childEnv, Map<String, String> settings) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions(!"off".equals(settings.get("KINDGI_PACK_JVM_DEFAULTS"))));
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), "com.kindgi.pack.Main", "serve", CHILD_FLAG));
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command)
        .redirectOutput(ProcessBuilder.Redirect.INHERIT)
        .redirectError(ProcessBuilder.Redirect.INHERIT);
    builder.environment().clear();
    builder.environment().putAll(childEnv);
    Process child = builder.start();
    for (String name : List.of("TERM", "INT")) {
      try {
        sun.misc.Signal.handle(new sun.misc.Signal(name), signal -> child.destroy());
      } catch (IllegalArgumentException e) {
        // The JVM keeps this signal for itself (-Xrs): it ends the launcher, and the child sees its stdin end.
      }
    }
    OutputStream stdin = child.getOutputStream();
    try {
      stdin.write((Json.write(Map.of("env", settings)) + "\n").getBytes(StandardCharsets.UTF_8));
      stdin.flush();
    } catch (IOException e) {
      // The child died before reading its settings; its exit code says so.
    }
    // The launcher only waits from here on: hand back the heap its start-up used.
    System.gc();
    while (true) {
      try {
        return child.waitFor();
      } catch (InterruptedException e) {
        // Only the child's end ends the launcher.
      }
    }
  }

  /**
   * The launcher's JVM options, for the child: heap and GC settings apply to the pack's code. A debugger agent
   * stays with the launcher (its port is taken), and options the environment gives ({@code JAVA_TOOL_OPTIONS},
   * kept for the child) are not given twice.
   */
  static List<String> jvmOptions(boolean containerDefaults) {
    List<String> options;
    try {
      options = ManagementFactory.getRuntimeMXBean().getInputArguments();
    } catch (LinkageError | RuntimeException e) {
      options = List.of();
    }
    Set<String> fromEnv = new HashSet<>();
    for (String name : List.of("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS")) {
      String value = System.getenv(name);
      if (value != null) fromEnv.addAll(Arrays.asList(value.trim().split("\\s+")));
    }
    List<String> out = new ArrayList<>();
    for (String option : options) {
      if (fromEnv.contains(option) || option.startsWith("-agentlib:jdwp") || option.startsWith("-Xrunjdwp")) continue;
      out.add(option);
    }
    if (containerDefaults) out.addAll(0, containerDefaults(options, fromEnv));
    return out;
  }

  /**
   * The pack JVM's memory defaults, each only where the launcher's options (or {@code JAVA_TOOL_OPTIONS}, …) set
   * nothing of its kind: the JVM's own ergonomics pick G1 and size the heap at a quarter of the machine's
   * memory, which a small pack service grows into under load (1.3 GB in the benchmark, against TypeScript's
   * 53 MB). The serial collector, a heap that starts at 32 MB and grows only as the live set needs (up to half
   * the container's memory) and 512 KiB thread stacks keep the benchmark's pack JVM at 164 MB for the same CPU
   * per request (docs/benchmarks/java.md). {@code KINDGI_PACK_JVM_DEFAULTS=off} leaves the JVM's ergonomics.
   */
  static List<String> containerDefaults(List<String> options, Set<String> fromEnv) {
    List<String> given = new ArrayList<>(options);
    given.addAll(fromEnv);
    List<String> out = new ArrayList<>();
    for (String[] d : CONTAINER_DEFAULTS) {
      boolean set = false;
      for (String option : given) for (int i = 1; i < d.length; i++) set |= option.startsWith(d[i]);
      if (!set) out.add(d[0]);
    }
    return out;
  }

  /** The child's side: the settings line from stdin (the launcher writes it before anything else). */
  public static Map<String, String> readSettings(InputStream in) throws IOException {
    byte[] buffer = new byte[4096];
    int length = 0;
    for (int b = in.read(); b != '\n'; b = in.read()) {
      if (b < 0) throw new IOException("stdin ended before the launcher's settings");
      if (length == MAX_SETTINGS_BYTES) throw new IOException("the launcher's settings are over " + MAX_SETTINGS_BYTES + " bytes");
      if (length == buffer.length) buffer = Arrays.copyOf(buffer, buffer.length * 2);
      buffer[length++] = (byte) b;
    }
    Map<String, String> out = new TreeMap<>();
    Json.parse(new String(buffer, 0, length, StandardCharsets.UTF_8)).path("env").fields()
        .forEachRemaining(e -> out.put(e.getKey(), e.getValue().asText()));
    return out;
  }

  /** The child's side: runs {@code onEnd} when stdin ends, that is when the launcher is gone. */
  public static void watchLauncher(InputStream in, Runnable onEnd) {
    Thread watcher = new Thread(() -> {
      try {
        while (in.read() >= 0) {
          // The launcher writes nothing after the settings; anything else is ignored.
        }
      } catch (IOException e) {
        // A broken pipe ends it the same way.
      }
      onEnd.run();
    }, "kindgi-launcher-watch");
    watcher.setDaemon(true);
    watcher.start();
  }
}
