import { PACK_PROTOCOL_VERSION } from './constants.js';
import { exceedsJsonDepth, jsonTextMayExceedDepth, MAX_JSON_DEPTH } from './json-depth.js';
import type { ErrorMessage, PackRequest, PackResponse } from './messages.js';
import { packError } from './pack-error.js';
import { err, ok, type Result } from './result.js';

/** A parse outcome: the message, or the `error` message to answer with. Parsers never throw. */
export type ParseResult<T> = Result<T, ErrorMessage>;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function show(value: unknown): string {
  if (value === undefined) return 'undefined';
  try {
    const text = JSON.stringify(value);
    return text.length > 200 ? `${text.slice(0, 200)}…` : text;
  } catch {
    return String(value);
  }
}

function malformed(message: string): ParseResult<never> {
  return err(packError('malformed-message', message));
}

// Decoded JSON cannot throw on property access, but a caller's object (a Proxy, a getter) can: the
// parsers' contract is to answer, never to throw.
function guarded<T>(parse: () => ParseResult<T>): ParseResult<T> {
  try {
    return parse();
  } catch {
    return malformed('Message must be a JSON object');
  }
}

function checkEnvelope(value: unknown): ParseResult<Record<string, unknown>> {
  if (!isPlainObject(value)) return malformed('Message must be a JSON object');
  if (value.v !== PACK_PROTOCOL_VERSION) {
    return err(packError('unknown-protocol-version', `Expected protocol v2, got ${show(value.v)}`));
  }
  return ok(value);
}

/**
 * Checks a decoded request in the published order: object, `v`, `kind`, then the fields each kind
 * needs. Unknown fields are kept, and `ctx` reaches the handler exactly as sent.
 */
export function parsePackRequest(value: unknown): ParseResult<PackRequest> {
  return guarded(() => checkRequest(value, true));
}

function checkRequest(value: unknown, mayBeTooDeep: boolean): ParseResult<PackRequest> {
  const checked = checkRequestFields(value);
  // Checked last, so only a message that is otherwise valid pays for the walk.
  if (checked.kind === 'ok' && mayBeTooDeep && exceedsJsonDepth(value)) {
    return malformed(`Message nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
  }
  return checked;
}

function checkRequestFields(value: unknown): ParseResult<PackRequest> {
  const envelope = checkEnvelope(value);
  if (envelope.kind === 'err') return envelope;
  const message = envelope.value;
  if (message.kind === 'invoke') {
    const tool = message.tool;
    if (!isPlainObject(tool) || typeof tool.id !== 'string' || tool.id === '') {
      return malformed('`tool.id` is required');
    }
    if (tool.version !== undefined && typeof tool.version !== 'string') {
      return malformed('`tool.version` must be a string');
    }
    const ctx = message.ctx;
    if (!isPlainObject(ctx) || typeof ctx.tenantId !== 'string' || typeof ctx.runId !== 'string') {
      return malformed('`ctx` needs string `tenantId` and `runId`');
    }
    return ok(message as unknown as PackRequest);
  }
  if (message.kind === 'check-invoke') {
    const check = message.check;
    if (!isPlainObject(check) || typeof check.id !== 'string' || check.id === '') {
      return malformed('`check.id` is required');
    }
    if (!isPlainObject(message.config)) return malformed('`config` must be an object');
    return ok(message as unknown as PackRequest);
  }
  return err(packError('unexpected-message-kind', `Unknown request kind ${show(message.kind)}`));
}

/** Decodes and checks a request body; a body that is not JSON is `malformed-message`. */
export function parsePackRequestText(text: string): ParseResult<PackRequest> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return malformed('Request body is not valid JSON');
  }
  // Most calls' bodies are too short to nest past the limit: they skip the walk.
  const mayBeTooDeep = jsonTextMayExceedDepth(text);
  return guarded(() => checkRequest(value, mayBeTooDeep));
}

/**
 * Checks a decoded response: `result` and `check-result` are accepted as they are; `error` needs a
 * string `code` and `message`.
 */
export function parsePackResponse(value: unknown): ParseResult<PackResponse> {
  return guarded(() => checkResponse(value));
}

function checkResponse(value: unknown): ParseResult<PackResponse> {
  const envelope = checkEnvelope(value);
  if (envelope.kind === 'err') return envelope;
  const message = envelope.value;
  if (message.kind === 'result' || message.kind === 'check-result') {
    return ok(message as unknown as PackResponse);
  }
  if (message.kind === 'error') {
    if (typeof message.code !== 'string' || typeof message.message !== 'string') {
      return malformed('An `error` message needs string `code` and `message`');
    }
    return ok(message as unknown as PackResponse);
  }
  return err(packError('unexpected-message-kind', `Unknown response kind ${show(message.kind)}`));
}
