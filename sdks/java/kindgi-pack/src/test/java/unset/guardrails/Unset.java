package unset.guardrails;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.kindgi.pack.CheckResult;
import com.kindgi.pack.Guardrail;

/** A required config field with neither a default nor a set("config") value: indexed, with a warning. */
public final class Unset {
  public record Config(int limit, @JsonProperty(defaultValue = "2") int spare) {}

  public static final Guardrail<Config> RULE = Guardrail.define("unset.rule").onViolation("log-only")
      .config(Config.class).check((config, trace) -> CheckResult.pass());

  private Unset() {}
}
