package probe.tools;

import com.kindgi.pack.Tool;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/** A tool that blocks until its call is cancelled, recording how it ended (the service tests watch it). */
public final class Block {
  public static volatile CountDownLatch started = new CountDownLatch(1);
  public static volatile CountDownLatch ended = new CountDownLatch(1);
  public static final AtomicReference<String> HOW = new AtomicReference<>();

  public static final Tool<Map<String, Object>, Object> TOOL = Tool.define("probe.block")
      .handler((input, ctx) -> {
        started.countDown();
        try {
          new CountDownLatch(1).await();
          HOW.set("released");
        } catch (InterruptedException e) {
          HOW.set("interrupted:" + ctx.cancellation().reason());
        } finally {
          ended.countDown();
        }
        return Map.of();
      });

  /** Fresh latches for the next call. */
  public static void reset() {
    started = new CountDownLatch(1);
    ended = new CountDownLatch(1);
    HOW.set(null);
  }

  private Block() {}
}
