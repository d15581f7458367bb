import { LRUCache } from 'lru-cache';

/** What a redacted value is replaced with. */
export const REDACTED = '[redacted]';
/** Values shorter than this are not searched for: a 3-letter value would blot out every log line. */
export const MIN_REDACTED_LENGTH = 8;
const MAX_VALUES = 10_000;

/**
 * Remembers secret values as they are sent to packs, and takes them out of text before it is logged: what
 * pack code writes, throws or logs reaches the server's log with every remembered value (raw, and as JSON
 * escapes it) replaced by `[redacted]`.
 * @example
 * const redactor = createSecretRedactor();
 * redactor.remember(['sk-live-0123456789']);
 * redactor.redact('token sk-live-0123456789 refused'); // 'token [redacted] refused'
 */
export interface SecretRedactor {
  remember(values: Iterable<string>): void;
  /** `text` with every remembered value replaced. */
  redact(text: string): string;
  /** A JSON-like value with every string in it redacted (a new value; the input is not changed). */
  redactDeep<T>(value: T): T;
  readonly size: number;
}

/** A redactor remembering up to 10,000 values (the least recently sent forgotten first). */
export function createSecretRedactor(): SecretRedactor {
  const values = new LRUCache<string, string[]>({ max: MAX_VALUES });
  const redact = (text: string): string => {
    if (values.size === 0) return text;
    let out = text;
    for (const forms of values.values()) {
      for (const form of forms) if (out.includes(form)) out = out.split(form).join(REDACTED);
    }
    return out;
  };
  const redactDeep = (value: unknown, depth: number): unknown => {
    if (typeof value === 'string') return redact(value);
    if (depth > 64 || value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map((item) => redactDeep(item, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = redactDeep(item, depth + 1);
    return out;
  };
  return {
    remember(sent) {
      for (const value of sent) {
        if (value.length < MIN_REDACTED_LENGTH || values.has(value)) continue;
        // Inside a JSON string a value may appear escaped (quotes, backslashes, control characters).
        const escaped = JSON.stringify(value).slice(1, -1);
        values.set(value, escaped === value ? [value] : [value, escaped]);
      }
    },
    redact,
    redactDeep: (value) => redactDeep(value, 0) as typeof value,
    get size() {
      return values.size;
    },
  };
}
