package com.kindgi.pack.internal;

import com.kindgi.pack.PackEnv;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;

/**
 * {@code Main serve}: the pack service process. Reads its settings, boots (index, env, classes), listens,
 * and serves until SIGTERM, then drains for up to 8 s and exits 0. A bad setting or boot exits 1 with a
 * {@code config-invalid} or {@code boot-failed} record.
 */
public final class ServeCommand {
  /** Sized for Cloud Run's 10 s between SIGTERM and SIGKILL. */
  public static final long DRAIN_MS = 8000;

  private ServeCommand() {}

  /** Runs the service; returns only when it could not start (the exit code). */
  public static int run(List<String> args) {
    Map<String, String> env = System.getenv();
    ServiceConfig config;
    try {
      config = ServiceConfig.read(args, env, Path.of("").toAbsolutePath());
    } catch (ServiceConfig.Invalid e) {
      return fail(PackLog.create(PackLog.Level.info, Map.of(), "auto"), "config-invalid", e.problems);
    }
    PackLog log = PackLog.create(config.logLevel(), config.logLevels(), config.logFormat());
    PackCatalog catalog;
    List<String> missing;
    try {
      catalog = PackCatalog.read(config.indexPath());
      Set<String> declared = new HashSet<>(catalog.envRequired);
      declared.addAll(catalog.envOptional);
      // A JVM launcher that filtered the environment before exec names what it kept here.
      for (String name : env.getOrDefault("KINDGI_PACK_ENV_DECLARED", "").split("[,\\s]+")) if (!name.isEmpty()) declared.add(name);
      if (config.envFilter().equals("on")) {
        List<String> dropped = PlatformEnv.undeclared(env, declared);
        PackEnv.install(env, name -> declared.contains(name) || PlatformEnv.kept(name));
        if (!dropped.isEmpty()) {
          log.record("env-dropped", PackLog.Level.warn, "Dropped " + dropped.size() + " variables the pack doesn't declare: "
              + String.join(", ", dropped) + " (declare them in the pack's env, or set KINDGI_PACK_ENV_FILTER=off)", Map.of("names", dropped));
        }
      } else {
        PackEnv.install(env, null);
      }
      missing = PlatformEnv.missing(env, catalog.envRequired);
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
