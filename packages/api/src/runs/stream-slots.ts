/** The default cap on one tenant's open SSE streams in one process. */
export const DEFAULT_MAX_STREAMS_PER_TENANT = 256;

/** Counts each tenant's open SSE streams in this process and refuses one past the cap. */
export class StreamSlots {
  readonly maxPerTenant: number;
  readonly #open = new Map<string, number>();

  constructor(maxPerTenant: number) {
    this.maxPerTenant = maxPerTenant;
  }

  /** A slot for one more stream of the tenant (call the returned release once, when it ends), or undefined at the cap. */
  take(tenantId: string): (() => void) | undefined {
    const open = this.#open.get(tenantId) ?? 0;
    if (open >= this.maxPerTenant) return undefined;
    this.#open.set(tenantId, open + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#open.get(tenantId) ?? 1) - 1;
      if (left > 0) this.#open.set(tenantId, left);
      else this.#open.delete(tenantId);
    };
  }
}
