import { describe, expect, it } from 'vitest';
import { callDeadlineMs, DEFAULT_CALL_TIMEOUT_MS, SILENCE_GRACE_MS, silenceLimitMs } from '../src/index.js';

describe('the one deadline module', () => {
  it("takes the caller's positive deadline, else the one default", () => {
    expect(callDeadlineMs(1_500)).toBe(1_500);
    expect(callDeadlineMs(0.5)).toBe(1);
    for (const none of [undefined, 0, -5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(callDeadlineMs(none)).toBe(DEFAULT_CALL_TIMEOUT_MS);
    }
  });

  it('waits for a silent pack the deadline plus the one grace', () => {
    expect(silenceLimitMs(1_000)).toBe(1_000 + SILENCE_GRACE_MS);
    expect(silenceLimitMs(undefined)).toBe(DEFAULT_CALL_TIMEOUT_MS + SILENCE_GRACE_MS);
  });
});
