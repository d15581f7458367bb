import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRestartTimer, type RestartClock } from '../src/supervisor/restart-timer.js';

/** A clock whose timers run only when the test advances it. */
function manualClock() {
  let now = 0;
  let next = 1;
  const timers = new Map<number, { at: number; fire: () => void }>();
  const clock: RestartClock = {
    setTimeout: (fire, ms) => {
      timers.set(next, { at: now + ms, fire });
      return next++;
    },
    clearTimeout: (handle) => void timers.delete(handle as number),
  };
  return {
    clock,
    get armed() {
      return timers.size;
    },
    advance(ms: number) {
      now += ms;
      for (const [handle, timer] of [...timers]) {
        if (timer.at > now) continue;
        timers.delete(handle);
        timer.fire();
      }
    },
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('supervisor: the restart timer', () => {
  it('waits the backoff delay of each attempt, over the defaults', () => {
    const { clock } = manualClock();
    const timer = createRestartTimer({ initialMs: 20, factor: 3 }, clock);
    expect([1, 2, 3, 4, 5, 6].map((attempt) => timer.arm(attempt, () => undefined))).toEqual([
      20, 60, 180, 540, 1_620, 4_860,
    ]);
    expect(createRestartTimer({}, clock).arm(10, () => undefined)).toBe(10_000);
  });

  it('fires once the delay has passed, not before', () => {
    const manual = manualClock();
    const timer = createRestartTimer({ initialMs: 100 }, manual.clock);
    const fired: number[] = [];
    timer.arm(1, () => fired.push(1));
    manual.advance(99);
    expect(fired).toEqual([]);
    manual.advance(1);
    expect(fired).toEqual([1]);
    expect(manual.armed).toBe(0);
  });

  it('does not fire once cancelled, and cancelling with none armed or after it fired is a no-op', () => {
    const manual = manualClock();
    const timer = createRestartTimer({ initialMs: 100 }, manual.clock);
    timer.cancel();
    const fired: string[] = [];
    timer.arm(1, () => fired.push('first'));
    timer.cancel();
    manual.advance(1_000);
    expect(fired).toEqual([]);
    timer.arm(1, () => fired.push('second'));
    manual.advance(100);
    timer.cancel();
    expect(fired).toEqual(['second']);
  });

  it('keeps one timer: arming again replaces the armed one', () => {
    const manual = manualClock();
    const timer = createRestartTimer({ initialMs: 100 }, manual.clock);
    const fired: string[] = [];
    timer.arm(1, () => fired.push('old'));
    timer.arm(2, () => fired.push('new'));
    expect(manual.armed).toBe(1);
    manual.advance(200);
    expect(fired).toEqual(['new']);
  });

  it('runs on the global timers by default', () => {
    vi.useFakeTimers();
    const timer = createRestartTimer({ initialMs: 50 });
    const fired: number[] = [];
    timer.arm(1, () => fired.push(1));
    vi.advanceTimersByTime(49);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual([1]);
    timer.arm(1, () => fired.push(2));
    timer.cancel();
    vi.advanceTimersByTime(1_000);
    expect(fired).toEqual([1]);
  });
});
