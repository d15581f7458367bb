package acme.guardrails;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.kindgi.pack.CheckResult;
import com.kindgi.pack.Guardrail;
import jakarta.validation.constraints.Min;
import java.util.Map;

/** acme.no-fabricated-quotes: an answer that quotes case law looked the citations up. */
public final class Citations {
  public record Config(@JsonProperty(defaultValue = "1") @Min(0) int minLookups) {}

  public static final Guardrail<Config> NO_FABRICATED_QUOTES = Guardrail.define("acme.no-fabricated-quotes")
      .name("No fabricated quotations")
      .onViolation("halt")
      .severity("critical")
      .config(Config.class)
      // What the check runs with, keyed as on the wire.
      .set("config", Map.of("minLookups", 2))
      .check((config, trace) -> {
        long lookups = trace.toolCalls().stream()
            .map(call -> (Map<?, ?>) call)
            .filter(call -> "acme.verify-citation".equals(call.get("toolName")))
            .count();
        return lookups >= config.minLookups()
            ? CheckResult.pass()
            : CheckResult.fail("Only " + lookups + " citation lookups (need " + config.minLookups() + "+).");
      });

  private Citations() {}
}
