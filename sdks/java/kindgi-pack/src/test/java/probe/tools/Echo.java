package probe.tools;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.kindgi.pack.Tool;
import jakarta.validation.constraints.Size;

/** A typed echo with a defaulted field: the service fills the default before binding. */
public final class Echo {
  public record Input(@Size(min = 1) String message, @JsonProperty(defaultValue = "2") int times) {}

  public record Output(String message) {}

  public static final Tool<Input, Output> TOOL = Tool.define("probe.echo").version("1.0.0").input(Input.class).output(Output.class)
      .handler((input, ctx) -> new Output(input.message().repeat(input.times())));

  private Echo() {}
}
