import { PACK_PROTOCOL_VERSION } from './constants.js';
import type { PackErrorCode } from './error-codes.js';
import type { ErrorMessage, JsonValue, WireCause } from './messages.js';

/** Optional fields of an `error` message. */
export type PackErrorExtra = Partial<Pick<ErrorMessage, 'toolId' | 'checkId' | 'cause' | 'issues'>>;

/** Builds a v2 `error` message. Extra fields that are `undefined` are left out. */
export function packError(code: PackErrorCode, message: string, extra: PackErrorExtra = {}): ErrorMessage {
  const out: ErrorMessage = { v: PACK_PROTOCOL_VERSION, kind: 'error', code, message };
  if (extra.toolId !== undefined) out.toolId = extra.toolId;
  if (extra.checkId !== undefined) out.checkId = extra.checkId;
  if ('cause' in extra) out.cause = extra.cause ?? null;
  if (extra.issues !== undefined) out.issues = extra.issues;
  return out;
}

/**
 * Turns anything a handler threw into its wire form: an Error becomes `{name, message, stack}`, a JSON
 * value is sent as is, `undefined` becomes null, and anything else (a symbol, a function, a cycle) its
 * string form, so a reply can always be serialised. Never throws, whatever pack code threw (a Proxy, an
 * object whose `toString` throws).
 */
export function toWireCause(thrown: unknown): WireCause {
  try {
    return wireCause(thrown);
  } catch {
    return UNPRINTABLE;
  }
}

const UNPRINTABLE = 'a value that cannot be printed';

function wireCause(thrown: unknown): WireCause {
  if (thrown instanceof Error) {
    const cause: { name: string; message: string; stack?: string } = {
      name: thrown.name,
      message: thrown.message,
    };
    if (typeof thrown.stack === 'string') cause.stack = thrown.stack;
    return cause;
  }
  if (thrown === undefined) return null;
  if (thrown === null || typeof thrown === 'string' || typeof thrown === 'boolean') return thrown;
  if (typeof thrown === 'number') return Number.isFinite(thrown) ? thrown : String(thrown);
  if (typeof thrown === 'object') {
    try {
      return JSON.parse(JSON.stringify(thrown)) as JsonValue;
    } catch {
      return String(thrown);
    }
  }
  return String(thrown);
}

/** `Name: message` for an Error, the string form of anything else (used in error messages). Never throws. */
export function describeThrown(thrown: unknown): string {
  try {
    if (thrown instanceof Error) return `${thrown.name}: ${thrown.message}`;
    if (typeof thrown === 'string') return thrown;
    try {
      return JSON.stringify(thrown) ?? String(thrown);
    } catch {
      return String(thrown);
    }
  } catch {
    return UNPRINTABLE;
  }
}

/** An Error's bare message, else `describeThrown`: for messages that name their subject already. Never throws. */
export function messageOf(thrown: unknown): string {
  try {
    if (thrown instanceof Error) return thrown.message;
  } catch {
    return UNPRINTABLE;
  }
  return describeThrown(thrown);
}
