package mistakes.tools;

import com.kindgi.pack.Tool;
import java.util.Map;

/** Common mistake 2: a tool held by an instance field is never indexed (a file error). */
public final class InstanceField {
  public final Tool<Map<String, Object>, Object> tool = Tool.define("mistakes.instance").handler((input, ctx) -> input);
}
