/** A stored answer to replay for a repeated `Idempotency-Key`. */
export interface IdempotencyEntry {
  /** sha256 hex of the request body text. */
  bodyHash: string;
  status: number;
  contentType: string;
  bodyText: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

export type IdempotencyHoldOutcome =
  | { kind: 'held' }
  | { kind: 'in-flight'; bodyHash: string }
  | { kind: 'stored'; entry: IdempotencyEntry };

/** Keeps answers to idempotent requests. Keys already include the tenant, method and path. */
export interface IdempotencyStore {
  get(key: string): Promise<IdempotencyEntry | null>;
  /** The first answer stored for a key wins; later ones are ignored. */
  set(key: string, entry: IdempotencyEntry): Promise<void>;
  /** Optional: claims a key while its first request runs, so a concurrent repeat is refused. */
  holds?: {
    hold(key: string, claim: { holder: string; bodyHash: string; expiresAt: number }): Promise<IdempotencyHoldOutcome>;
    renew(key: string, holder: string, expiresAt: number): Promise<void>;
    release(key: string, holder: string): Promise<void>;
  };
}
