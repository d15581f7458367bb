package com.kindgi.pack.internal;

import com.kindgi.pack.PackEnv;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.jspecify.annotations.Nullable;

/**
 * {@code Main serve}: the pack service process. Reads its settings, boots (index, env, classes) in a child
 * JVM with the filtered environment, listens, and serves until SIGTERM, then drains for up to 8 s and exits 0. A bad setting or boot exits 1 with a
 * {@code config-invalid} or {@code boot-failed} record.
 */
public final class ServeCommand {
  /** Sized for Cloud Run's 10 s between SIGTERM and SIGKILL. */
  public static final long DRAIN_MS = 8000;

  private ServeCommand() {}

  /**
   * Runs the service; returns only when it could not start (the exit code). This JVM is a launcher: it checks
   * the settings and the index, then serves from a child JVM whose environment holds only what pack code may
   * see ({@link ChildJvm}), and exits with the child's code.
   */
  public static int run(List<String> args) {
    boolean child = !args.isEmpty() && args.get(0).equals(ChildJvm.CHILD_FLAG);
    Map<String, String> env = new HashMap<>(System.getenv());
    List<String> rest = new ArrayList<>(child ? args.subList(1, args.size()) : args);
    try {
      if (child) env.putAll(ChildJvm.readSettings(System.in));
      else readTokenFd(rest, env);
    } catch (IOException e) {
      return fail(PackLog.create(PackLog.Level.info, Map.of(), "json"), "config-invalid", List.of(e.getMessage()));
    }
    ServiceConfig config;
    try {
      config = ServiceConfig.read(rest, env, Path.of("").toAbsolutePath());
    } catch (ServiceConfig.Invalid e) {
      return fail(PackLog.create(PackLog.Level.info, Map.of(), "auto"), "config-invalid", e.problems);
    }
    PackLog log = PackLog.create(config.logLevel(), config.logLevels(), config.logFormat());
    PackCatalog catalog;
    try {
      catalog = PackCatalog.read(config.indexPath());
    } catch (PackCatalog.BootException e) {
      return fail(log, "boot-failed", e.problems);
    }
    Set<String> declared = new HashSet<>(catalog.envRequired);
    declared.addAll(catalog.envOptional);
    boolean filter = config.envFilter().equals("on");
    if (!child) return launch(rest, env, filter ? declared : null, config, log);
    PackEnv.install(env, filter ? name -> !name.startsWith("KINDGI_") && (declared.contains(name) || PlatformEnv.kept(name)) : null);
    return serve(config, catalog, env, log);
  }

  /**
   * {@code --token-fd <n>}: the token read from inherited file descriptor n (the supervisor's way, so it is
   * never in any environment block); it wins over {@code KINDGI_PACK_SERVICE_TOKEN}.
   */
  private static void readTokenFd(List<String> args, Map<String, String> env) throws IOException {
    int at = args.indexOf("--token-fd");
    if (at < 0) return;
    if (at + 1 >= args.size() || !args.get(at + 1).matches("^\\d{1,4}$")) {
      throw new IOException("--token-fd needs a file descriptor number");
    }
    String fd = args.get(at + 1);
    args.subList(at, at + 2).clear();
    try (InputStream in = new FileInputStream("/dev/fd/" + fd)) {
      // A token is short; more than 64 KiB is not one.
      env.put("KINDGI_PACK_SERVICE_TOKEN", new String(in.readNBytes(64 * 1024), StandardCharsets.UTF_8).trim());
    } catch (IOException e) {
      throw new IOException("Cannot read the token from file descriptor " + fd + ": " + e.getMessage());
    }
  }

  /**
   * The launcher: logs what the child's environment leaves out (names only), then runs the child. A null
   * {@code declared} is the filter off: the child keeps every variable but the token.
   */
  private static int launch(List<String> args, Map<String, String> env, @Nullable Set<String> declared, ServiceConfig config,
      PackLog log) {
    List<String> dropped = declared == null ? List.of() : PlatformEnv.undeclared(env, declared);
    if (!dropped.isEmpty()) {
      log.record("env-dropped", PackLog.Level.warn, "Dropped " + dropped.size() + " variables the pack doesn't declare: "
          + String.join(", ", dropped) + " (declare them in the pack's env, or set KINDGI_PACK_ENV_FILTER=off)", Map.of("names", dropped));
    }
    try {
      return ChildJvm.run(args, ChildJvm.childEnv(env, declared), ChildJvm.settings(env, config.logFormat()));
    } catch (IOException e) {
      return fail(log, "boot-failed", List.of("Cannot start the pack's JVM: " + e.getMessage()));
    }
  }

  private static int serve(ServiceConfig config, PackCatalog catalog, Map<String, String> env, PackLog log) {
    List<String> missing = PlatformEnv.missing(env, catalog.envRequired);
    try {
      catalog.resolve(config.moduleRoot());
    } catch (PackCatalog.BootException e) {
      return fail(log, "boot-failed", e.problems);
    }
    if (!missing.isEmpty()) {
      log.record("missing-env", PackLog.Level.warn, "The pack's env.required names have no value: " + String.join(", ", missing),
          Map.of("check", config.envCheck(), "names", missing));
    }
    PackServer server = new PackServer(new PackServer.State(catalog, config.token(), config.maxConcurrency(),
        config.envCheck().equals("strict"), missing, log));
    int port;
    try {
      port = server.listen(config.host(), config.port());
    } catch (Exception e) {
      server.close();
      return fail(log, "boot-failed", List.of("Cannot listen on port " + config.port() + ": " + e.getMessage()));
    }
    CountDownLatch stop = new CountDownLatch(1);
    sun.misc.Signal.handle(new sun.misc.Signal("TERM"), signal -> stop.countDown());
    // A child's launcher relays SIGTERM; if the launcher itself is killed, the child must not outlive it.
    ChildJvm.watchLauncher(System.in, stop::countDown);
    log.lifecycle("listening", PackLog.Level.info, "Listening on port " + port,
        Map.of("port", port, "packId", catalog.packId, "artifactVersion", catalog.artifactVersion));
    try {
      stop.await();
      server.state().draining = true;
      int inFlight = server.state().inFlight.get();
      log.lifecycle("draining", PackLog.Level.info, "Draining " + inFlight + " calls in flight", Map.of("inFlight", inFlight));
      server.drain(DRAIN_MS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    server.close();
    log.lifecycle("stopped", PackLog.Level.info, "Stopped", Map.of());
    // Handlers still running past the grace must not keep the process alive.
    Runtime.getRuntime().halt(0);
    return 0;
  }

  private static int fail(PackLog log, String event, List<String> problems) {
    String what = event.equals("boot-failed") ? "The pack service failed to boot" : "The pack service settings are invalid";
    log.lifecycle(event, PackLog.Level.error, what + ": " + String.join("; ", problems), Map.of("problems", new ArrayList<>(problems)));
    return 1;
  }
}
