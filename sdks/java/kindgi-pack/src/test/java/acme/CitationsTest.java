package acme;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import acme.guardrails.Citations;
import com.kindgi.pack.RunTrace;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CitationsTest {
  @Test
  void noLookupsFails() throws Exception {
    RunTrace trace = new RunTrace(Map.of("output", "As held in Smith v. Jones…"));
    assertFalse(Citations.NO_FABRICATED_QUOTES.evaluate(new Citations.Config(1), trace).passed());
  }

  @Test
  void enoughLookupsPass() throws Exception {
    Map<String, Object> lookup = Map.of("toolName", "acme.verify-citation", "arguments", Map.of());
    RunTrace trace = new RunTrace(Map.of("toolCalls", List.of(lookup, lookup)));
    assertTrue(Citations.NO_FABRICATED_QUOTES.evaluate(new Citations.Config(2), trace).passed());
  }
}
