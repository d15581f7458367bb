import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Target } from './call-log.js';

/** Why an invoke was answered 503 before it ran. */
export type RejectReason = 'overloaded' | 'draining' | 'missing-env' | 'not-ready';

/** What the service reports per call; `createPackMetrics` counts it in prom-client. */
export interface PackMetrics {
  /** A call that ended (answered, timed out or cancelled), by its tool or check id and outcome code. */
  callEnded(target: Target, id: string, outcome: string, ms: number): void;
  /** An invoke answered 503 without running. */
  rejected(reason: RejectReason): void;
  /** The Prometheus text exposition of every series. */
  scrape(): Promise<string>;
  /** The exposition's `Content-Type`. */
  readonly contentType: string;
}

const SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
// Ids are bounded by the index; outcome codes by the protocol's error table, except a handler's own
// error codes, so the number of label sets is capped too.
const MAX_LABEL_SETS = 2000;
const OVERFLOW = '(other)';

interface CallSeries {
  /** Calls ended since the last scrape; added to the counter when it is collected. */
  pending: number;
  calls: { inc(value: number): void };
  seconds: { observe(value: number): void };
}

/**
 * Prometheus metrics for one pack service: calls by target, id and outcome with a latency histogram,
 * calls in flight (read from `inFlight` at scrape time), rejections by reason, and the Node process
 * defaults (CPU, memory, GC, event-loop lag) prefixed `kindgi_pack_`.
 */
export function createPackMetrics(inFlight: () => number): PackMetrics {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry, prefix: 'kindgi_pack_' });
  // The labelled children, cached: looking a label set up per call costs more than counting it.
  const series = new Map<string, CallSeries>();
  // Counted per call in a plain number and handed to prom-client at scrape time: its `inc` hashes the
  // label set on every call (measured with the benchmark, see docs/benchmarks/pack-service.md).
  const flush = (): void => {
    for (const entry of series.values()) {
      if (entry.pending === 0) continue;
      entry.calls.inc(entry.pending);
      entry.pending = 0;
    }
  };
  const calls = new Counter({
    name: 'kindgi_pack_calls_total',
    help: 'Calls that ended, by target (tool, check), tool or check id, and outcome (ok or an error code).',
    labelNames: ['target', 'id', 'outcome'],
    registers,
    collect: flush,
  });
  const seconds = new Histogram({
    name: 'kindgi_pack_call_duration_seconds',
    help: 'Call latency from admission to its end, by target and id.',
    labelNames: ['target', 'id'],
    buckets: SECONDS,
    registers,
  });
  const rejected = new Counter({
    name: 'kindgi_pack_calls_rejected_total',
    help: 'Invokes answered 503 before they ran, by reason (overloaded = at the concurrency cap).',
    labelNames: ['reason'],
    registers,
  });
  new Gauge({
    name: 'kindgi_pack_calls_in_flight',
    help: 'Calls admitted and not yet answered.',
    registers,
    collect() {
      this.set(inFlight());
    },
  });
  const seriesFor = (target: Target, id: string, outcome: string): CallSeries => {
    let key = `${target}\u0000${id}\u0000${outcome}`;
    let found = series.get(key);
    if (found !== undefined) return found;
    // Past the cap, every new label set of a target shares one `(other)` series.
    const full = series.size >= MAX_LABEL_SETS;
    if (full) {
      key = `${target}\u0000${OVERFLOW}`;
      found = series.get(key);
      if (found !== undefined) return found;
    }
    found = {
      pending: 0,
      calls: calls.labels(target, full ? OVERFLOW : id, full ? OVERFLOW : outcome),
      seconds: seconds.labels(target, full ? OVERFLOW : id),
    };
    series.set(key, found);
    return found;
  };
  return {
    callEnded(target, id, outcome, ms) {
      // A tool or check the pack doesn't have is named by the caller: never a label.
      const known = outcome !== 'tool-not-in-pack' && outcome !== 'check-not-in-pack';
      const found = seriesFor(target, known ? id : '', outcome);
      found.pending++;
      found.seconds.observe(ms / 1000);
    },
    rejected(reason) {
      rejected.labels(reason).inc();
    },
    scrape: () => registry.metrics(),
    contentType: registry.contentType,
  };
}
