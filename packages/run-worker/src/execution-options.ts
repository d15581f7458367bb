/** How runs are queued and executed; the defaults are the documented ones (docs/API-ROUTE-CONVENTIONS.md). */
export interface RunExecutionOptions {
  /** Runs this process executes at once per pack. Default 16. */
  concurrencyPerPack: number;
  /** Runs waiting per pack before `POST /v1/runs` answers 503 `run-queue-full`. Default 1,000. */
  maxQueuedPerPack: number;
  /**
   * Runs one tenant may have waiting per pack before its `POST /v1/runs` answers 503 `run-queue-full`.
   * Default: a quarter of `maxQueuedPerPack` (rounded up), so one tenant cannot fill a queue for all.
   */
  maxQueuedPerTenant?: number;
  /** A run its pack still refuses (503) this long after it was accepted fails as `pack-unavailable`. Default 10 min. */
  queueTimeoutMs: number;
  /** A run whose executor stops renewing its lease for this long fails as `run-interrupted`. Default 30 s. */
  leaseMs: number;
  /** How often the queue and expired leases are re-checked without a notification. Default 1 s. */
  pollMs: number;
  /**
   * How long the end (or requeue) of a run is retried while the run store cannot record it, the outcome held
   * in memory meanwhile. Default 5 min.
   */
  recordRetryMs: number;
}

/** The documented defaults (docs/API-ROUTE-CONVENTIONS.md, "Run execution"). */
export const DEFAULT_RUN_EXECUTION: RunExecutionOptions = {
  concurrencyPerPack: 16,
  maxQueuedPerPack: 1_000,
  queueTimeoutMs: 10 * 60_000,
  leaseMs: 30_000,
  pollMs: 1_000,
  recordRetryMs: 5 * 60_000,
};

/** The per-tenant queue limit: as configured, else a quarter of the pack's (at least 1). */
export function tenantQueueLimit(options: RunExecutionOptions): number {
  return options.maxQueuedPerTenant ?? Math.max(1, Math.ceil(options.maxQueuedPerPack / 4));
}
