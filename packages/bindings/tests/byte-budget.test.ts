import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ByteBudget } from '../src/index.js';

describe('ByteBudget', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('grants what fits at once and holds it until released (release is idempotent)', async () => {
    const budget = new ByteBudget(100);
    const first = await budget.acquire(60, 0);
    expect(first?.bytes).toBe(60);
    expect(budget.used).toBe(60);
    expect(await budget.acquire(50, 0)).toBeUndefined();
    first?.release();
    first?.release();
    expect(budget.used).toBe(0);
    expect((await budget.acquire(100, 0))?.bytes).toBe(100);
  });

  it('a waiter gets its bytes when they are released, and gives up after its wait', async () => {
    const budget = new ByteBudget(100);
    const held = (await budget.acquire(80, 0))!;
    const waiting = budget.acquire(50, 1_000);
    const givingUp = budget.acquire(50, 500);
    await vi.advanceTimersByTimeAsync(500);
    expect(await givingUp).toBeUndefined();
    held.release();
    expect((await waiting)?.bytes).toBe(50);
    expect(budget.used).toBe(50);
  });

  it('serves waiters in arrival order: a large one is not passed by later small ones', async () => {
    const budget = new ByteBudget(100);
    const held = (await budget.acquire(90, 0))!;
    const order: string[] = [];
    const large = budget.acquire(60, 10_000).then((lease) => order.push('large') && lease);
    const small = budget.acquire(5, 10_000).then((lease) => order.push('small') && lease);
    await vi.advanceTimersByTimeAsync(10);
    // 5 bytes would fit now, but the large request came first.
    expect(order).toEqual([]);
    held.release();
    await Promise.all([large, small]);
    expect(order).toEqual(['large', 'small']);
    expect(budget.used).toBe(65);
  });

  it('a request larger than the whole budget gets the whole budget once nothing else holds any', async () => {
    const budget = new ByteBudget(100);
    const held = (await budget.acquire(1, 0))!;
    const huge = budget.acquire(1_000, 10_000);
    held.release();
    expect((await huge)?.bytes).toBe(100);
  });

  it('waitForRoom takes nothing; an aborted wait gives up at once', async () => {
    const budget = new ByteBudget(10);
    expect(await budget.waitForRoom(0)).toBe(true);
    const full = (await budget.acquire(10, 0))!;
    expect(await budget.waitForRoom(0)).toBe(false);
    const room = budget.waitForRoom(10_000);
    full.release();
    expect(await room).toBe(true);
    expect(budget.used).toBe(0);
    const again = (await budget.acquire(10, 0))!;
    const abort = new AbortController();
    const aborted = budget.acquire(1, 60_000, abort.signal);
    abort.abort();
    expect(await aborted).toBeUndefined();
    again.release();
    expect(budget.used).toBe(0);
  });
});
