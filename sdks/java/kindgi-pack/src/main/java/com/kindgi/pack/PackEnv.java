package com.kindgi.pack;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The process environment as the pack's code may see it: a convenience, no longer needed for safety. The
 * pack service runs pack code in a child JVM whose real environment already holds only the declared and
 * platform names (never {@code KINDGI_*}), so {@code System.getenv} and this view agree there. The service
 * token ({@code KINDGI_PACK_SERVICE_TOKEN}) is never in it; outside the pack service (tests, tools), it is
 * the whole environment less the token.
 */
public final class PackEnv {
  private static volatile Map<String, String> view = filtered(System.getenv(), null);

  private PackEnv() {}

  /** The variable's value, or null when it is unset or not visible to pack code. */
  public static @Nullable String get(String name) {
    return view.get(name);
  }

  /** Every variable visible to pack code, sorted by name. */
  public static Map<String, String> all() {
    return view;
  }

  /**
   * Sets the view (the pack service does this at boot). {@code keep} null keeps every name but the
   * token; otherwise only the names {@code keep} accepts remain.
   */
  public static void install(Map<String, String> env, java.util.function.@Nullable Predicate<String> keep) {
    view = filtered(env, keep);
  }

  private static Map<String, String> filtered(Map<String, String> env, java.util.function.@Nullable Predicate<String> keep) {
    Map<String, String> out = new TreeMap<>();
    for (Map.Entry<String, String> e : env.entrySet()) {
      String name = e.getKey();
      if (name.equals("KINDGI_PACK_SERVICE_TOKEN")) continue;
      if (keep != null && !keep.test(name)) continue;
      out.put(name, e.getValue());
    }
    return Collections.unmodifiableMap(out);
  }
}
