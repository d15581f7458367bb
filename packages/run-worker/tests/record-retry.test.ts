import type { RunStoreError } from '@kindgi/bindings';
import { err, ok, type Result } from '@kindgi/protocol';
import { describe, expect, it } from 'vitest';
import { retryStoreWrite } from '../src/record-retry.js';

const QUICK = { totalMs: 60_000, firstDelayMs: 1, maxDelayMs: 4 };
const DOWN: RunStoreError = { code: 'run-store-error', message: 'connection refused' };

/** An attempt that fails as an unreachable store `failures` times, then answers `value`. */
function recovering(failures: number, value = 'written') {
  let calls = 0;
  const attempt = async (): Promise<Result<string, RunStoreError>> => (++calls <= failures ? err(DOWN) : ok(value));
  return { attempt, calls: () => calls };
}

describe('retryStoreWrite', () => {
  it('tries again while the store fails, telling each failure, until it answers', async () => {
    const { attempt, calls } = recovering(3);
    const tries: number[] = [];
    const result = await retryStoreWrite(attempt, QUICK, new AbortController().signal, (_e, n) => tries.push(n));
    expect(result).toEqual(ok('written'));
    expect(calls()).toBe(4);
    expect(tries).toEqual([1, 2, 3]);
  });

  it('takes a refusal as the answer at once', async () => {
    let calls = 0;
    const lost: RunStoreError = { code: 'run-lease-lost', message: 'not yours' };
    const result = await retryStoreWrite(
      async () => {
        calls++;
        return err(lost);
      },
      QUICK,
      new AbortController().signal,
      () => undefined,
    );
    expect(result).toEqual(err(lost));
    expect(calls).toBe(1);
  });

  it('starts no attempt past totalMs, and returns the last failure', async () => {
    const { attempt, calls } = recovering(Number.POSITIVE_INFINITY);
    const result = await retryStoreWrite(attempt, { ...QUICK, totalMs: 0 }, new AbortController().signal, () => {});
    expect(result).toEqual(err(DOWN));
    expect(calls()).toBe(1);
  });

  it('stops when its signal aborts', async () => {
    const stop = new AbortController();
    const { attempt, calls } = recovering(Number.POSITIVE_INFINITY);
    const result = await retryStoreWrite(attempt, QUICK, stop.signal, (_e, n) => {
      if (n === 2) stop.abort();
    });
    expect(result).toEqual(err(DOWN));
    expect(calls()).toBe(2);
  });
});
