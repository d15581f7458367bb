package acme.tools;

import com.kindgi.pack.Tool;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.io.IOException;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** acme.verify-citation: checks a legal citation against the citator. */
public final class VerifyCitation {
  public record Input(
      @Size(min = 1) String citation,
      @Pattern(regexp = "^(US|UK|EU)$") String jurisdiction) {}

  public record Output(boolean found, @Nullable String canonicalCite) {}

  public static final Tool<Input, Output> TOOL = Tool.define("acme.verify-citation")
      .description("Verifies a legal citation against the citator; returns whether it resolves and its canonical form.")
      .input(Input.class)
      .output(Output.class)
      .mutating(false)
      .set("needsSpec", Map.of("secrets", Map.of("CITATOR_KEY", Map.of("type", "string", "minLength", 20))))
      .handler((input, ctx) ->
          verify(input, (String) ctx.secrets().get("CITATOR_KEY"), System.getenv("CITATOR_URL")));

  /** The tool's work, with what it reads from its context and the environment passed in: a test calls it. */
  public static Output verify(Input input, String key, String citatorUrl) throws IOException, InterruptedException {
    String hit = Citator.lookup(citatorUrl, key, input.citation(), input.jurisdiction());
    return new Output(hit != null, hit);
  }

  private VerifyCitation() {}
}
