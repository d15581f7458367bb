import type { RunStore, TelemetryBinding } from '@kindgi/bindings';

/**
 * The run store, reporting every status transition it stored (enqueue, claim, requeue, finish, expiry). A proxy, so a store's own
 * methods beyond the contract (and its prototype's) keep working.
 */
export function observeRunStore(store: RunStore, telemetry: TelemetryBinding): RunStore {
  // Each method that moves a run reports the status it moved the run to, once the store said it did.
  const wrapped: Partial<RunStore> = {
    enqueue: async (run, job, options) => {
      const queued = await store.enqueue(run, job, options);
      if (queued.kind === 'ok') telemetry.runStatus(queued.value.status);
      return queued;
    },
    claim: async (request) => {
      const claimed = await store.claim(request);
      if (claimed.kind === 'ok' && claimed.value) telemetry.runStatus(claimed.value.run.status);
      return claimed;
    },
    requeue: async (tenantId, runId, owner, delayMs) => {
      const requeued = await store.requeue(tenantId, runId, owner, delayMs);
      if (requeued.kind === 'ok') telemetry.runStatus('queued');
      return requeued;
    },
    finish: async (tenantId, runId, outcome, options) => {
      const finished = await store.finish(tenantId, runId, outcome, options);
      if (finished.kind === 'ok') telemetry.runStatus(finished.value.status);
      return finished;
    },
    // The options (the runs this server still executes) must reach the store, or it would fail them.
    expireLeases: async (message, options) => {
      const expired = await store.expireLeases(message, options);
      if (expired.kind === 'ok') for (const run of expired.value) telemetry.runStatus(run.status);
      return expired;
    },
  };
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, property) {
      if (typeof property === 'string' && Object.hasOwn(wrapped, property)) return wrapped[property as keyof RunStore];
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      let fn = bound.get(property);
      if (fn === undefined) {
        fn = value.bind(target);
        bound.set(property, fn);
      }
      return fn;
    },
  });
}
