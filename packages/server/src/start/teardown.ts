import { messageOf } from '@kindgi/protocol';

/** A teardown step that failed: the others ran anyway. */
export interface TeardownFailure {
  readonly step: string;
  readonly message: string;
}

/**
 * What a start acquired, to release in reverse order: every failure path of the start and the server's
 * `close()` run the same stack, so nothing is closed twice or forgotten on one path.
 */
export interface Teardown {
  /** Adds a step; the stack runs the last one added first. */
  add(step: string, release: () => void | Promise<void>): void;
  /**
   * Runs every step once, newest first, each after the previous one settled; a step that throws or rejects
   * is reported and the rest still run. Every call returns the first run's outcome. A step added once the
   * stack ran is released at once (nothing would run it later); its failure is not reported.
   */
  run(): Promise<readonly TeardownFailure[]>;
}

/** An empty teardown stack. */
export function createTeardown(): Teardown {
  const steps: { step: string; release: () => void | Promise<void> }[] = [];
  let running: Promise<readonly TeardownFailure[]> | undefined;
  const runAll = async (): Promise<readonly TeardownFailure[]> => {
    const failures: TeardownFailure[] = [];
    for (const { step, release } of steps.splice(0).reverse()) {
      try {
        await release();
      } catch (cause) {
        failures.push({ step, message: messageOf(cause) });
      }
    }
    return failures;
  };
  return {
    add(step, release) {
      if (running === undefined) steps.push({ step, release });
      else
        void Promise.resolve()
          .then(release)
          .catch(() => undefined);
    },
    run() {
      running ??= runAll();
      return running;
    },
  };
}
