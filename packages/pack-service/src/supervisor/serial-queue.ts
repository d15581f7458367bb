/** Runs tasks one at a time, in the order given. */
export type SerialQueue = <T>(task: () => Promise<T>) => Promise<T>;

/**
 * A queue where each task starts once the one before it settled, whether it resolved or rejected: the
 * supervisor's boots run through one, so two children never race to become the one serving.
 */
export function createSerialQueue(): SerialQueue {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(task: () => Promise<T>): Promise<T> => {
    const run = tail.then(task, task);
    tail = run.catch(() => undefined);
    return run;
  };
}
