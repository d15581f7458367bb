package mistakes.tools;

import com.kindgi.pack.Tool;
import java.util.List;

/** A type that can't be a schema: a file error naming the property. */
public final class RecursiveInput {
  public record Node(String name, List<Node> children) {}

  public static final Tool<Node, Object> TOOL = Tool.define("mistakes.recursive").input(Node.class).handler((input, ctx) -> input);

  private RecursiveInput() {}
}
