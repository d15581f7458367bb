import { describe, expect, it } from 'vitest';
import { planRequeue } from '../src/requeue-plan.js';

const ACCEPTED = '2026-01-01T00:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(ACCEPTED) + ms);
const refusal = (retryAfterMs?: number) => ({
  code: 'pack-unavailable' as const,
  message: 'draining',
  status: 503,
  ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
});

describe('planRequeue', () => {
  it("waits the pack's Retry-After, 1 s without one, at most 30 s", () => {
    expect(planRequeue(refusal(2_500), ACCEPTED, at(0), 600_000)).toEqual({ kind: 'requeue', delayMs: 2_500 });
    expect(planRequeue(refusal(), ACCEPTED, at(0), 600_000)).toEqual({ kind: 'requeue', delayMs: 1_000 });
    expect(planRequeue(refusal(120_000), ACCEPTED, at(0), 600_000)).toEqual({ kind: 'requeue', delayMs: 30_000 });
  });

  it('fails the run as pack-unavailable once the wait would pass the queue timeout', () => {
    expect(planRequeue(refusal(1_000), ACCEPTED, at(59_000), 60_000)).toEqual({ kind: 'requeue', delayMs: 1_000 });
    expect(planRequeue(refusal(1_000), ACCEPTED, at(59_500), 60_000)).toEqual({
      kind: 'give-up',
      outcome: {
        status: 'failed',
        error: { code: 'pack-unavailable', message: 'The pack stayed unavailable for 60 s: draining' },
      },
    });
  });
});
