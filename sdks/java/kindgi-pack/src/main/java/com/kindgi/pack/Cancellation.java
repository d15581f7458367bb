package com.kindgi.pack;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import org.jspecify.annotations.Nullable;

/**
 * Fires when a call's deadline passes or its caller goes away. A handler polls {@link #isCancelled()},
 * calls {@link #throwIfCancelled()}, or registers work to stop with {@link #onCancel(Runnable)}. The pack
 * service also interrupts the handler's thread, so a blocking wait ends.
 */
public final class Cancellation {
  private final List<Runnable> actions = new ArrayList<>();
  private @Nullable String reason;
  private @Nullable Thread thread;

  /** A cancellation that has not fired; tests fire it with {@link #cancel(String)}. */
  public Cancellation() {}

  /** True once the call was cancelled. */
  public synchronized boolean isCancelled() {
    return reason != null;
  }

  /** Why the call was cancelled ({@code deadline-exceeded} or {@code cancelled}), or null. */
  public synchronized @Nullable String reason() {
    return reason;
  }

  /** Throws {@link CancellationException} once the call was cancelled. */
  public void throwIfCancelled() {
    String why = reason();
    if (why != null) throw new CancellationException("The call was cancelled (" + why + ")");
  }

  /**
   * Runs {@code action} when the call is cancelled, or at once when it already was. An action that
   * throws does not stop the others.
   */
  public void onCancel(Runnable action) {
    boolean now;
    synchronized (this) {
      now = reason != null;
      if (!now) actions.add(action);
    }
    if (now) runQuietly(action);
  }

  /**
   * Fires the cancellation: marks it, interrupts the handler's thread (when one is bound) and runs the
   * registered actions. Only the first call has an effect.
   */
  public void cancel(String why) {
    List<Runnable> toRun;
    Thread target;
    synchronized (this) {
      if (reason != null) return;
      reason = why;
      toRun = new ArrayList<>(actions);
      actions.clear();
      target = thread;
    }
    if (target != null) target.interrupt();
    for (Runnable action : toRun) runQuietly(action);
  }

  /** Binds the thread running the handler, so cancelling interrupts it; null unbinds. */
  public synchronized void bindThread(@Nullable Thread handlerThread) {
    this.thread = handlerThread;
  }

  private static void runQuietly(Runnable action) {
    try {
      action.run();
    } catch (RuntimeException e) {
      // One failing clean-up must not keep the others from running.
    }
  }
}
