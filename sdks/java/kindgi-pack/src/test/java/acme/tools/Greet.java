package acme.tools;

import com.kindgi.pack.Tool;
import java.util.Map;

/** acme.greet: the tool the seed's ToolContext sample calls; it reads a declared secret. */
public final class Greet {
  public record Input(String name, String greeting) {}

  public record Output(String text, boolean keyed) {}

  public static final Tool<Input, Output> TOOL = Tool.define("acme.greet")
      .description("Greets someone by name; says whether the tenant's greeting key was present.")
      .input(Input.class)
      .output(Output.class)
      .mutating(false)
      .set("needsSpec", Map.of("secrets", Map.of("CITATOR_KEY", Map.of("type", "string", "minLength", 20))))
      .handler((input, ctx) -> new Output(input.greeting() + ", " + input.name() + "!", ctx.secrets().containsKey("CITATOR_KEY")));

  private Greet() {}
}
