package com.kindgi.pack.internal;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The pack service's log: one JSON record per line on stderr, {@code time}, {@code level},
 * {@code severity}, {@code subsystem}, {@code message}, then the fields. Lifecycle records are written at
 * any level. Pack code printing to {@code System.err} can't split a record: a record after a partial
 * line starts on a fresh line.
 */
public final class PackLog {
  /** Log levels, lowest first, with Cloud Logging's severity names. */
  public enum Level {
    debug(10, "DEBUG"), info(20, "INFO"), warn(30, "WARNING"), error(40, "ERROR");

    final int rank;
    final String severity;

    Level(int rank, String severity) {
      this.rank = rank;
      this.severity = severity;
    }

    static @Nullable Level parse(String name) {
      for (Level l : values()) if (l.name().equals(name)) return l;
      return null;
    }
  }

  private static final DateTimeFormatter ISO = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);
  private static LineSink sink;

  private final String subsystem;
  private final Level threshold;
  private final boolean json;
  private final Map<String, Object> bound;
  private final Level base;
  private final Map<String, Level> levels;

  private PackLog(String subsystem, Level base, Map<String, Level> levels, boolean json, Map<String, Object> bound) {
    this.subsystem = subsystem;
    this.base = base;
    this.levels = levels;
    this.json = json;
    this.bound = bound;
    Level best = base;
    int bestLength = -1;
    for (Map.Entry<String, Level> e : levels.entrySet()) {
      String prefix = e.getKey();
      if ((subsystem.equals(prefix) || subsystem.startsWith(prefix + ".")) && prefix.length() > bestLength) {
        best = e.getValue();
        bestLength = prefix.length();
      }
    }
    this.threshold = best;
  }

  /** The service's root logger ({@code pack}); installs the stderr line guard once. */
  public static synchronized PackLog create(Level level, Map<String, Level> levels, String format) {
    if (sink == null) sink = new LineSink();
    boolean json = !format.equals("pretty") && !(format.equals("auto") && System.console() != null);
    return new PackLog("pack", level, levels, json, Map.of());
  }

  public PackLog child(String name, Map<String, Object> fields) {
    Map<String, Object> merged = new LinkedHashMap<>(bound);
    merged.putAll(fields);
    return new PackLog(name, base, levels, json, merged);
  }

  public boolean enabled(Level level) {
    return level.rank >= threshold.rank;
  }

  public void log(Level level, String message, Map<String, ?> fields) {
    if (enabled(level)) emit(level, message, fields, null);
  }

  /** A record named by {@code event} (also its {@code kind}) that follows the log level. */
  public void record(String event, Level level, String message, Map<String, ?> fields) {
    if (enabled(level)) emit(level, message, fields, event);
  }

  /** A lifecycle record ({@code listening}, {@code boot-failed}, …): written at any level. */
  public void lifecycle(String event, Level level, String message, Map<String, ?> fields) {
    emit(level, message, fields, event);
  }

  private void emit(Level level, String message, Map<String, ?> fields, @Nullable String event) {
    Map<String, Object> record = new LinkedHashMap<>();
    record.put("time", ISO.format(Instant.now()));
    record.put("level", level.name());
    record.put("severity", level.severity);
    record.put("subsystem", subsystem);
    record.put("message", message);
    if (event != null) {
      record.put("event", event);
      record.put("kind", event);
    }
    for (Map<String, ?> source : java.util.List.of(bound, fields)) {
      for (Map.Entry<String, ?> e : source.entrySet()) {
        if (e.getValue() != null && !record.containsKey(e.getKey())) record.put(e.getKey(), e.getValue());
      }
    }
    String line;
    if (json) {
      line = Json.write(record);
    } else {
      StringBuilder b = new StringBuilder();
      b.append(record.remove("time")).append(' ').append(String.format("%-5s", level.name().toUpperCase()))
          .append(" [").append(record.remove("subsystem")).append("] ").append(record.remove("message"));
      record.remove("level");
      record.remove("severity");
      for (Map.Entry<String, Object> e : record.entrySet()) {
        b.append(' ').append(e.getKey()).append('=').append(e.getValue() instanceof String s ? s : Json.write(e.getValue()));
      }
      line = b.toString().replace("\n", "\\n");
    }
    synchronized (PackLog.class) {
      if (sink == null) sink = new LineSink();
      sink.writeLine(line);
    }
  }

  /** Watches every write to stderr so a record never lands inside a line pack code left unfinished. */
  private static final class LineSink {
    private final OutputStream raw = new FileOutputStream(FileDescriptor.err);
    private volatile boolean atLineStart = true;

    LineSink() {
      OutputStream watcher = new OutputStream() {
        @Override
        public void write(int b) throws java.io.IOException {
          synchronized (PackLog.class) {
            raw.write(b);
            atLineStart = b == '\n';
          }
        }

        @Override
        public void write(byte[] b, int off, int len) throws java.io.IOException {
          if (len == 0) return;
          synchronized (PackLog.class) {
            raw.write(b, off, len);
            atLineStart = b[off + len - 1] == '\n';
          }
        }
      };
      System.setErr(new PrintStream(watcher, true, StandardCharsets.UTF_8));
    }

    void writeLine(String line) {
      byte[] bytes = ((atLineStart ? "" : "\n") + line + "\n").getBytes(StandardCharsets.UTF_8);
      try {
        raw.write(bytes);
        raw.flush();
      } catch (java.io.IOException e) {
        // stderr is gone: nothing left to tell.
      }
      atLineStart = true;
    }
  }
}
