import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DeadlineLists } from '../src/service/deadline-list.js';

// Fake timers fake `Date`, so the lists measure on `Date.now` here (the service uses `performance.now`).
function setup() {
  const lists = new DeadlineLists(() => Date.now());
  const expired: string[] = [];
  const entry = (name: string) => ({ expire: () => expired.push(name) });
  return { lists, expired, entry };
}

describe('DeadlineLists', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('expires entries of one timeout in insertion order, none before its timeout', () => {
    const { lists, expired, entry } = setup();
    lists.add(entry('a'), 100);
    vi.advanceTimersByTime(30);
    lists.add(entry('b'), 100);
    lists.add(entry('c'), 100);
    vi.advanceTimersByTime(69);
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(expired).toEqual(['a']);
    vi.advanceTimersByTime(29);
    expect(expired).toEqual(['a']);
    vi.advanceTimersByTime(1);
    expect(expired).toEqual(['a', 'b', 'c']);
    expect(lists.size()).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('keeps one timer per distinct timeout and expires across lists by time', () => {
    const { lists, expired, entry } = setup();
    lists.add(entry('long'), 200);
    lists.add(entry('short'), 50);
    lists.add(entry('long2'), 200);
    lists.add(entry('short2'), 50);
    expect(vi.getTimerCount()).toBe(2);
    vi.advanceTimersByTime(50);
    expect(expired).toEqual(['short', 'short2']);
    vi.advanceTimersByTime(150);
    expect(expired).toEqual(['short', 'short2', 'long', 'long2']);
  });

  it('never expires a removed entry, and a removed head passes the timer on to the next', () => {
    const { lists, expired, entry } = setup();
    const a = lists.add(entry('a'), 100);
    vi.advanceTimersByTime(40);
    lists.add(entry('b'), 100);
    const c = lists.add(entry('c'), 100);
    lists.remove(a);
    lists.remove(c);
    lists.remove(c);
    expect(lists.size()).toBe(1);
    vi.advanceTimersByTime(60);
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(39);
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(expired).toEqual(['b']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('unreferences the timer when its list empties, so an idle process can exit, and drops the list later', () => {
    const { lists, expired, entry } = setup();
    const a = lists.add(entry('a'), 1000);
    const b = lists.add(entry('b'), 1000);
    lists.remove(b);
    expect(lists.referencedTimers()).toBe(1);
    lists.remove(a);
    expect(lists.referencedTimers()).toBe(0);
    vi.advanceTimersByTime(500);
    lists.add(entry('c'), 1000);
    expect(lists.referencedTimers()).toBe(1);
    vi.advanceTimersByTime(500);
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(500);
    expect(expired).toEqual(['c']);
    expect(vi.getTimerCount()).toBe(0);
    const d = lists.add(entry('d'), 1000);
    lists.remove(d);
    vi.advanceTimersByTime(1000);
    expect(expired).toEqual(['c']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('re-arms rather than expiring early when the timer fires before the clock reaches the deadline', () => {
    let now = 0;
    const lists = new DeadlineLists(() => now);
    const expired: string[] = [];
    lists.add({ expire: () => expired.push('a') }, 100);
    now = 99.5; // the timer turn came before this clock passed the deadline
    vi.advanceTimersByTime(100);
    expect(expired).toEqual([]);
    now = 100;
    vi.advanceTimersByTime(1);
    expect(expired).toEqual(['a']);
  });

  it('removing an expired entry does nothing', () => {
    const { lists, expired, entry } = setup();
    const a = lists.add(entry('a'), 10);
    vi.advanceTimersByTime(10);
    lists.remove(a);
    lists.add(entry('b'), 10);
    vi.advanceTimersByTime(10);
    expect(expired).toEqual(['a', 'b']);
  });
});
