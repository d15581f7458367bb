package __JAVA_PACKAGE__.guardrails;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.kindgi.pack.CheckResult;
import com.kindgi.pack.Guardrail;
import jakarta.validation.constraints.Min;
import java.util.Map;

/** __PACK_ID__.answer-not-empty: a sample guardrail; an agent's answer must say something. */
public final class AnswerNotEmpty {
  public record Config(@JsonProperty(defaultValue = "1") @Min(1) int minLength) {}

  public static final Guardrail<Config> RULE = Guardrail.define("__PACK_ID__.answer-not-empty")
      .name("Answers are not empty")
      .onViolation("halt")
      .severity("error")
      .checkId("__PACK_ID__.checks.answer-not-empty")
      .config(Config.class)
      .set("config", Map.of("minLength", 1))
      .check((config, trace) -> {
        String output = trace.output() == null ? "" : trace.output().trim();
        return output.length() >= config.minLength()
            ? CheckResult.pass()
            : CheckResult.fail("The answer has " + output.length() + " character(s); at least "
                + config.minLength() + " needed");
      });

  private AnswerNotEmpty() {}
}
