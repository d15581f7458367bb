package traced.tools;

import com.kindgi.pack.Tool;
import java.util.Map;

/** Writes a line through {@code ctx.log()}, then throws when its input says {@code fail}. */
public final class Traced {
  public static final Tool<Map<String, Object>, Object> TOOL = Tool.define("traced.log")
      .input(Map.of("type", "object"))
      .output(Map.of("type", "object"))
      .handler((input, ctx) -> {
        ctx.log().info("traced handler line", Map.of("step", 1));
        if (Boolean.TRUE.equals(input.get("fail"))) throw new IllegalStateException("traced failure");
        return Map.of("ok", true);
      });

  private Traced() {}
}
