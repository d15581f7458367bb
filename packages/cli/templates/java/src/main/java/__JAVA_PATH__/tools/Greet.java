package __JAVA_PACKAGE__.tools;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.kindgi.pack.Tool;
import jakarta.validation.constraints.Size;

/** __PACK_ID__.greet: a sample tool. Replace it with one that does what your agents need. */
public final class Greet {
  public record Input(
      @Size(min = 1, max = 200) String name,
      @JsonProperty(defaultValue = "Hello") @Size(min = 1, max = 50) String greeting) {}

  public record Output(String message) {}

  public static final Tool<Input, Output> TOOL = Tool.define("__PACK_ID__.greet")
      .description("Greets someone by name and returns the greeting.")
      .input(Input.class)
      .output(Output.class)
      // Read-only: it changes nothing outside itself, so a dry run may call it.
      .mutating(false)
      .handler((input, ctx) -> greet(input));

  /** The tool's work, without its context: a test calls it directly. */
  public static Output greet(Input input) {
    return new Output(input.greeting() + ", " + input.name() + "!");
  }

  private Greet() {}
}
