package mistakes.guardrails;

import com.kindgi.pack.Tool;
import java.util.Map;

/** A tool in a guardrails package: kind-mismatch. */
public final class WrongKind {
  public static final Tool<Map<String, Object>, Object> TOOL = Tool.define("mistakes.misplaced").handler((input, ctx) -> input);

  private WrongKind() {}
}
