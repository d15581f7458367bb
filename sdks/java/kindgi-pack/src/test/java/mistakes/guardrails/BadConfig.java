package mistakes.guardrails;

import com.kindgi.pack.CheckResult;
import com.kindgi.pack.Guardrail;
import jakarta.validation.constraints.Min;
import java.util.Map;

/** Values that fail the config's own schema: a file error. */
public final class BadConfig {
  public record Config(@Min(0) int limit) {}

  public static final Guardrail<Config> RULE = Guardrail.define("mistakes.bad-config").onViolation("halt")
      .config(Config.class).set("config", Map.of("limit", -1)).check((config, trace) -> CheckResult.pass());

  private BadConfig() {}
}
