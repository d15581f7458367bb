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

// Up to this many values a text is searched for each in turn; past it, each position of the text is looked
// up by its first MIN_REDACTED_LENGTH characters, so a record costs its length, not the number of values.
const SCAN_EACH_UP_TO = 16;

/** Replaces, left to right, every occurrence of a form `candidates` offers at a position (longest first). */
function redactByPrefix(text: string, candidates: (prefix: string) => readonly string[] | undefined): string {
  let out = '';
  let copied = 0;
  for (let at = 0; at + MIN_REDACTED_LENGTH <= text.length; ) {
    const forms = candidates(text.slice(at, at + MIN_REDACTED_LENGTH));
    const form = forms?.find((candidate) => text.startsWith(candidate, at));
    if (form === undefined) {
      at++;
      continue;
    }
    out += text.slice(copied, at) + REDACTED;
    at += form.length;
    copied = at;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** A redactor remembering up to 10,000 values (the least recently sent forgotten first). */
export function createSecretRedactor(): SecretRedactor {
  // Each value's forms (raw, JSON-escaped), and the forms by their first characters for long lists.
  const byPrefix = new Map<string, string[]>();
  const index = (form: string, add: boolean) => {
    const prefix = form.slice(0, MIN_REDACTED_LENGTH);
    const others = (byPrefix.get(prefix) ?? []).filter((other) => other !== form);
    if (add) others.push(form);
    // Longest first: a value that starts with another is taken whole.
    others.sort((a, b) => b.length - a.length);
    if (others.length === 0) byPrefix.delete(prefix);
    else byPrefix.set(prefix, others);
  };
  const values = new LRUCache<string, string[]>({
    max: MAX_VALUES,
    dispose: (forms) => {
      for (const form of forms) index(form, false);
    },
  });
  const redact = (text: string): string => {
    if (values.size === 0 || text.length < MIN_REDACTED_LENGTH) return text;
    if (values.size > SCAN_EACH_UP_TO) return redactByPrefix(text, (prefix) => byPrefix.get(prefix));
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
        // `get` marks a value sent again as recent: a secret in use is the last to be forgotten.
        if (value.length < MIN_REDACTED_LENGTH || values.get(value) !== undefined) continue;
        // Inside a JSON string a value may appear escaped (quotes, backslashes, control characters).
        const escaped = JSON.stringify(value).slice(1, -1);
        const forms = escaped === value ? [value] : [value, escaped];
        values.set(value, forms);
        for (const form of forms) index(form, true);
      }
    },
    redact,
    redactDeep: (value) => redactDeep(value, 0) as typeof value,
    get size() {
      return values.size;
    },
  };
}
