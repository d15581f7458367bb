package probe.tools;

import com.kindgi.pack.Tool;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Reads the process environment as seed 004 tells authors to ({@code System.getenv}), and the secrets it was handed. */
public final class Env {
  public static final Tool<Map<String, Object>, Object> TOOL = Tool.define("probe.env")
      .input(Map.of("type", "object"))
      .output(Map.of("type", "object"))
      .set("needsSpec", Map.of("secrets", Map.of("DECLARED_KEY", Map.of("type", "string"))))
      .handler((input, ctx) -> Map.of("env", new TreeMap<>(System.getenv()), "secrets", new TreeMap<>(ctx.secrets()),
          "args", List.of()));

  private Env() {}
}
