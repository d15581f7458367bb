package mistakes.guardrails;

import com.kindgi.pack.CheckResult;
import com.kindgi.pack.Guardrail;
import java.util.Map;

/** Common mistake 3 of guardrails: no onViolation or action; the builder refuses the check. */
public final class NoAction {
  public static final Guardrail<Map<String, Object>> RULE = Guardrail.define("mistakes.no-action")
      .check((config, trace) -> CheckResult.pass());

  private NoAction() {}
}
