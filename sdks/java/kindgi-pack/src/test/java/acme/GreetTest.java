package acme;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import acme.tools.Greet;
import com.kindgi.pack.Cancellation;
import com.kindgi.pack.ToolContext;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The seed's {@code new ToolContext(…)} sample, and what printing a context shows. */
class GreetTest {
  @Test
  void aContextWithSecretsReachesTheHandler() throws Exception {
    ToolContext ctx = new ToolContext("t-test", "run-test", null, null, null,
        Map.of(), Map.of("CITATOR_KEY", "test-key-of-twenty-chars"), Map.of(), Map.of(), new Cancellation());
    Greet.Output out = Greet.TOOL.call(new Greet.Input("Ada", "Hi"), ctx);
    assertEquals("Hi, Ada!", out.text());
    assertTrue(out.keyed());
    assertFalse(ctx.toString().contains("test-key-of-twenty-chars"));
    assertTrue(ctx.toString().contains("CITATOR_KEY"));
  }

  @Test
  void forTestHasATestTenantAndNothingElse() throws Exception {
    ToolContext ctx = ToolContext.forTest();
    assertEquals("t-test", ctx.tenantId());
    assertEquals("run-test", ctx.runId());
    assertTrue(ctx.secrets().isEmpty() && ctx.env().isEmpty() && ctx.config().isEmpty());
    assertFalse(Greet.TOOL.call(new Greet.Input("Ada", "Hi"), ctx).keyed());
  }
}
