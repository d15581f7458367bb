package com.kindgi.pack.internal;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;

/** Awaiting a handler's stage and rethrowing what it failed with, unwrapped. */
public final class Futures {
  private Futures() {}

  /** Waits for {@code stage}; its failure is thrown as the handler threw it. */
  public static <T> T await(CompletionStage<T> stage) throws Exception {
    if (stage == null) throw new IllegalStateException("The handler returned no CompletionStage");
    try {
      return stage.toCompletableFuture().get();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() instanceof java.util.concurrent.CompletionException c && c.getCause() != null
          ? c.getCause() : e.getCause();
      if (cause instanceof Exception ex) throw ex;
      if (cause instanceof Error err) throw err;
      throw e;
    }
  }
}
