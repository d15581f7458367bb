package mistakes.tools;

import com.kindgi.pack.Tool;

/** The one well-formed tool of the pack, so its index is still written. */
public final class Fine {
  public record Input(String text) {}

  public static final Tool<Input, Input> TOOL = Tool.define("mistakes.fine").description("Echoes.").input(Input.class)
      .output(Input.class).handler((input, ctx) -> input);

  private Fine() {}
}
