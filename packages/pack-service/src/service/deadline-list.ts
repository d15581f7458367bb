import { performance } from 'node:perf_hooks';

/** Something with a deadline: `expire` runs once when it passes, unless the entry was removed first. */
export interface DeadlineEntry {
  expire(): void;
}

/** A link of one timeout's list; the list keeps these, so an entry needs no fields of its own. */
interface Link {
  readonly entry: DeadlineEntry;
  readonly expiresAt: number;
  prev: Link | undefined;
  next: Link | undefined;
  list: TimeoutList | undefined;
}

/** The entries of one timeout value, oldest first, under one timer for the head. */
interface TimeoutList {
  readonly timeoutMs: number;
  head: Link | undefined;
  tail: Link | undefined;
  timer: NodeJS.Timeout | undefined;
}

/** The handle `add` returns, for `remove` when the entry settles first. */
export type DeadlineHandle = object;

/**
 * Deadlines kept as one list per distinct timeout value, like Node's own timer lists but without a
 * `Timeout` object per entry: entries added later with the same timeout expire later, so a single timer
 * armed for a list's head is enough. `setTimeout` + `clearTimeout` per call were ≈ 2 % of a small call's
 * CPU time. An entry expires no earlier than its timeout after `add` (by `now`), and late by no more
 * than a timer turn. An empty list's timer is unreferenced, so it never keeps an idle process alive.
 */
export class DeadlineLists {
  readonly #lists = new Map<number, TimeoutList>();
  readonly #now: () => number;

  /** `now` is the clock deadlines are measured on (milliseconds); default `performance.now`. */
  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  /** Starts `entry`'s deadline of `timeoutMs` (a positive number of milliseconds). */
  add(entry: DeadlineEntry, timeoutMs: number): DeadlineHandle {
    let list = this.#lists.get(timeoutMs);
    if (list === undefined) {
      list = { timeoutMs, head: undefined, tail: undefined, timer: undefined };
      this.#lists.set(timeoutMs, list);
    }
    const link: Link = { entry, expiresAt: this.#now() + timeoutMs, prev: list.tail, next: undefined, list };
    if (list.tail === undefined) {
      list.head = link;
      // An empty list's timer is kept unreferenced (see `remove`); a due check is armed either way.
      if (list.timer === undefined) this.#arm(list, timeoutMs);
      else list.timer.ref();
    } else list.tail.next = link;
    list.tail = link;
    return link;
  }

  /** Ends a deadline before it passes; nothing when it already expired or was removed. */
  remove(handle: DeadlineHandle): void {
    const link = handle as Link;
    const list = link.list;
    if (list === undefined) return;
    this.#unlink(list, link);
    // A removed head leaves its timer armed: it fires, finds the new head not due, and re-arms for it.
    // An emptied list keeps its timer too, unreferenced, so an idle process can exit: a call is usually
    // added and removed in one loop turn, and clearing and re-making the timer each time costs more than
    // the `setTimeout` per call this replaces. The timer then finds the list empty and drops it.
    if (list.head === undefined) list.timer?.unref();
  }

  /** Entries not yet expired or removed (for tests). */
  size(): number {
    let n = 0;
    for (const list of this.#lists.values()) for (let l = list.head; l !== undefined; l = l.next) n++;
    return n;
  }

  #unlink(list: TimeoutList, link: Link): void {
    if (link.prev === undefined) list.head = link.next;
    else link.prev.next = link.next;
    if (link.next === undefined) list.tail = link.prev;
    else link.next.prev = link.prev;
    link.prev = undefined;
    link.next = undefined;
    link.list = undefined;
  }

  #arm(list: TimeoutList, delayMs: number): void {
    list.timer = setTimeout(DeadlineLists.#fire, Math.max(1, Math.ceil(delayMs)), this, list);
  }

  /** Timers referenced now, i.e. lists holding entries (for tests). */
  referencedTimers(): number {
    let n = 0;
    for (const list of this.#lists.values()) if (list.timer?.hasRef()) n++;
    return n;
  }

  // One function for every list's timer, so arming one makes no closure.
  static readonly #fire = (lists: DeadlineLists, list: TimeoutList): void => lists.#expireDue(list);

  /** Expires every due entry of `list` in order (`expire` must not throw), then re-arms for the next. */
  #expireDue(list: TimeoutList): void {
    list.timer = undefined;
    const now = this.#now();
    for (let link = list.head; link !== undefined; link = list.head) {
      if (link.expiresAt > now) {
        if (list.timer === undefined) this.#arm(list, link.expiresAt - now);
        return;
      }
      this.#unlink(list, link);
      link.entry.expire();
    }
    // Lists found empty are dropped, so callers naming many distinct timeouts leave none behind.
    if (list.timer === undefined) this.#lists.delete(list.timeoutMs);
  }
}
