package bench.tools;

import com.kindgi.pack.Tool;
import java.util.List;
import java.util.Map;

/** bench.echo: returns its input; the same schemas as the TypeScript service benchmark's echo tool. */
public final class Echo {
  private static final Map<String, Object> MESSAGE = Map.of(
      "type", "object",
      "properties", Map.of(
          "message", Map.of("type", "string", "minLength", 1),
          "count", Map.of("type", "integer", "minimum", 0),
          "tags", Map.of("type", "array", "items", Map.of("type", "string"))),
      "required", List.of("message"),
      "additionalProperties", false);

  public static final Tool<Map<String, Object>, Object> TOOL = Tool.define("bench.echo")
      .input(MESSAGE)
      .output(MESSAGE)
      .handler((input, ctx) -> input);

  private Echo() {}
}
