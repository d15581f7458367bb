package __JAVA_PACKAGE__;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import __JAVA_PACKAGE__.guardrails.AnswerNotEmpty;
import __JAVA_PACKAGE__.tools.Greet;
import com.kindgi.pack.RunTrace;
import com.kindgi.pack.ToolContext;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PackTest {
  @Test
  void greetsByName() throws Exception {
    Greet.Output out = Greet.TOOL.call(new Greet.Input("Ada", "Hi"), ToolContext.forTest());
    assertEquals("Hi, Ada!", out.message());
  }

  @Test
  void refusesAnEmptyAnswer() throws Exception {
    AnswerNotEmpty.Config config = new AnswerNotEmpty.Config(1);
    assertFalse(AnswerNotEmpty.RULE.evaluate(config, new RunTrace(Map.of("output", "  "))).passed());
    assertTrue(AnswerNotEmpty.RULE.evaluate(config, new RunTrace(Map.of("output", "Hello"))).passed());
  }
}
