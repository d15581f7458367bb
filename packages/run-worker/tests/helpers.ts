import type { ApiLogger, GuardrailDescriptor, RunError, RunRecord, RunStore } from '@kindgi/bindings';
import type { PackCallFailure } from '../src/index.js';

/** A logger that keeps what it was told, for tests that check a line was (or was not) written. */
export function recordingLogger(): ApiLogger & { lines: { level: string; message: string }[] } {
  const lines: { level: string; message: string }[] = [];
  const at = (level: string) => (message: string) => {
    lines.push({ level, message });
  };
  return { lines, warn: at('warn'), error: at('error') };
}

/** A mapping of failures to run errors that says which kind it was, so tests see what the worker passed on. */
export function describeFailure(failure: PackCallFailure): RunError {
  switch (failure.kind) {
    case 'transport':
      return { code: failure.error.code, message: failure.error.message };
    case 'pack-error':
      return { code: `pack:${failure.message.code}`, message: failure.message.message };
    case 'wrong-kind':
      return { code: 'wrong-kind', message: `${failure.expected} != ${failure.received}` };
    case 'malformed-check':
      return { code: 'malformed-check', message: failure.reason };
  }
}

/** A guardrail of the pack `pack-demo` whose check is `checkId`. */
export function guardrail(id: string, checkId: string, action: 'halt' | 'log-only'): GuardrailDescriptor {
  return {
    id,
    kind: 'test',
    checkId,
    packId: 'pack-demo',
    action: { 'on-violation': action },
    severity: 'critical',
  };
}

/** A queued run record as an executor would enqueue it. */
export function queuedRun(runId: string, at = new Date()): RunRecord {
  const stamp = at.toISOString();
  return {
    runId,
    tenantId: 't1',
    toolId: 'echo',
    status: 'queued',
    input: { n: 1 },
    guardrails: [],
    violations: [],
    createdAt: stamp,
    updatedAt: stamp,
  };
}

/**
 * The store with `method` failing as an unreachable store does (`run-store-error`) while `failing()` says
 * so; every other method, and the method afterwards, is the store's own.
 */
export function failingWhile<M extends keyof RunStore>(store: RunStore, method: M, failing: () => boolean): RunStore {
  const real = store[method] as (...args: unknown[]) => Promise<unknown>;
  const replaced = async (...args: unknown[]) =>
    failing()
      ? { kind: 'err', error: { code: 'run-store-error', message: 'connection refused' } }
      : real.apply(store, args);
  return { ...store, [method]: replaced } as RunStore;
}
