package com.kindgi.pack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class AuthoringApiTest {
  @Test
  void aGuardrailWithoutAnActionIsRefused() {
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> Guardrail.define("acme.x").check((config, trace) -> CheckResult.pass()));
    assertTrue(e.getMessage().contains("has no action"), e.getMessage());
  }

  @Test
  void anUnknownActionOrSeverityIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> Guardrail.define("acme.x").onViolation("explode"));
    assertThrows(IllegalArgumentException.class, () -> Guardrail.define("acme.x").severity("fatal"));
  }

  @Test
  void actionTakesTheWholeObject() {
    Guardrail<Map<String, Object>> g = Guardrail.define("acme.retry")
        .action(Map.of("on-violation", "retry", "retry", Map.of("maxAttempts", 2)))
        .check((config, trace) -> CheckResult.pass());
    assertEquals("retry", g.action().get("on-violation"));
    assertEquals("acme.retry", g.checkId());
    assertEquals("zero-llm", g.kind());
  }

  @Test
  void anAsyncCheckIsAwaited() throws Exception {
    Guardrail<Map<String, Object>> g = Guardrail.define("acme.async").onViolation("log-only")
        .asyncCheck((config, trace) -> CompletableFuture.supplyAsync(() -> CheckResult.fail("no: " + trace.output())));
    CheckResult result = g.evaluate(Map.of(), new RunTrace(Map.of("output", "x")));
    assertFalse(result.passed());
    assertEquals("no: x", result.reason());
  }

  @Test
  void anAsyncHandlerIsAwaitedAndItsFailureRethrown() {
    Tool<Map<String, Object>, Object> tool = Tool.define("acme.fails")
        .asyncHandler((input, ctx) -> CompletableFuture.failedFuture(new IllegalStateException("boom")));
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> tool.call(Map.of(), ToolContext.forTest()));
    assertEquals("boom", e.getMessage());
  }

  @Test
  void setRefusesFieldsTheIndexDoesNotTake() {
    assertThrows(IllegalArgumentException.class, () -> Tool.define("acme.x").set("modulePath", "x"));
    assertThrows(IllegalArgumentException.class, () -> Tool.define("acme.x").version("1.0"));
  }

  @Test
  void cancellationFiresActionsAndInterruptsTheBoundThread() throws Exception {
    Cancellation cancellation = new Cancellation();
    AtomicBoolean ran = new AtomicBoolean();
    cancellation.onCancel(() -> ran.set(true));
    CountDownLatch waiting = new CountDownLatch(1);
    AtomicReference<Throwable> seen = new AtomicReference<>();
    Thread worker = new Thread(() -> {
      cancellation.bindThread(Thread.currentThread());
      waiting.countDown();
      try {
        new CountDownLatch(1).await();
      } catch (InterruptedException e) {
        seen.set(e);
      }
    });
    worker.start();
    waiting.await();
    cancellation.cancel("deadline-exceeded");
    worker.join();
    assertTrue(ran.get());
    assertTrue(seen.get() instanceof InterruptedException);
    assertTrue(cancellation.isCancelled());
    assertEquals("deadline-exceeded", cancellation.reason());
    assertThrows(CancellationException.class, cancellation::throwIfCancelled);
    AtomicBoolean late = new AtomicBoolean();
    cancellation.onCancel(() -> late.set(true));
    assertTrue(late.get());
  }

  @Test
  void runTraceReadsTheWireFields() {
    RunTrace trace = new RunTrace(Map.of("runId", "r1", "tenantId", "t1", "mode", "ci", "output", "done",
        "toolCalls", List.of(Map.of("toolName", "a")), "userInput", "hi", "extra", 1));
    assertEquals("r1", trace.runId());
    assertEquals("t1", trace.tenantId());
    assertEquals("ci", trace.mode());
    assertEquals("done", trace.output());
    assertEquals("hi", trace.userInput());
    assertEquals(1, trace.toolCalls().size());
    assertTrue(trace.toolResults().isEmpty() && trace.modelCalls().isEmpty());
    assertEquals(1, trace.raw().get("extra"));
  }
}
