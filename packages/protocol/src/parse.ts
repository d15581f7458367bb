import { PACK_PROTOCOL_VERSION } from './constants.js';
import {
  validateCheckInvokeRequest,
  validateCheckResultMessage,
  validateErrorMessage,
  validateInvokeRequest,
  validateResultMessage,
  type WireValidator,
} from './generated/validators.js';
import { exceedsJsonDepth, jsonTextMayExceedDepth, MAX_JSON_DEPTH } from './json-depth.js';
import type { ErrorMessage, PackRequest, PackResponse } from './messages.js';
import { packError } from './pack-error.js';
import { err, ok, type Result } from './result.js';
import { describeWireProblem, show, type WireProblem } from './wire-problems.js';

/** A parse outcome: the message, or the `error` message to answer with. Parsers never throw. */
export type ParseResult<T> = Result<T, ErrorMessage>;

/** How one message kind is checked: its schema (from specs/), and what its failures say. */
interface KindCheck<T> {
  validate: WireValidator<T>;
  problems: readonly WireProblem[];
}

// The schema decides what is refused; these give the published wording, in the published order.
const REQUEST_KINDS: Record<string, KindCheck<PackRequest>> = {
  invoke: {
    validate: validateInvokeRequest,
    problems: [
      { where: /^\/tool(\/id)?$/, says: '`tool.id` is required' },
      { where: /^\/tool\/version$/, says: '`tool.version` must be a string' },
      { where: /^\/ctx(\/tenantId|\/runId)?$/, says: '`ctx` needs string `tenantId` and `runId`' },
    ],
  },
  'check-invoke': {
    validate: validateCheckInvokeRequest,
    problems: [
      { where: /^\/check(\/id)?$/, says: '`check.id` is required' },
      { where: /^\/config$/, says: '`config` must be an object' },
    ],
  },
};

const NEEDS_CODE_AND_MESSAGE = 'An `error` message needs string `code` and `message`';

const RESPONSE_KINDS: Record<string, KindCheck<PackResponse>> = {
  result: {
    validate: validateResultMessage,
    problems: [{ where: /^\/output$/, says: 'A `result` message needs an `output`' }],
  },
  'check-result': {
    validate: validateCheckResultMessage,
    problems: [{ where: /^\/result(\/passed)?$/, says: 'A `check-result` message needs a boolean `result.passed`' }],
  },
  error: {
    validate: validateErrorMessage,
    problems: [
      { where: /^\/(code|message)$/, keywords: ['required', 'type'], says: NEEDS_CODE_AND_MESSAGE },
      {
        where: /^\/code$/,
        keywords: ['enum'],
        says: ({ code }) => (typeof code === 'string' ? `Unknown error code ${show(code)}` : NEEDS_CODE_AND_MESSAGE),
      },
    ],
  },
};

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
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

/** The published order: an object, then `v`, then a known `kind`, then that kind's schema. */
function checkMessage<T>(value: unknown, kinds: Record<string, KindCheck<T>>, side: string): ParseResult<T> {
  if (!isPlainObject(value)) return malformed('Message must be a JSON object');
  if (value.v !== PACK_PROTOCOL_VERSION) {
    return err(packError('unknown-protocol-version', `Expected protocol v2, got ${show(value.v)}`));
  }
  const kind = typeof value.kind === 'string' && Object.hasOwn(kinds, value.kind) ? kinds[value.kind] : undefined;
  if (!kind) return err(packError('unexpected-message-kind', `Unknown ${side} kind ${show(value.kind)}`));
  if (kind.validate(value)) return ok(value);
  return malformed(describeWireProblem(kind.validate.errors ?? [], kind.problems, value));
}

/**
 * Checks a decoded request against specs/pack-protocol.schema.json (`$defs/request`), in the published
 * order: object, `v`, `kind`, then the fields each kind needs. Unknown fields are kept (the schema's
 * forward-compatibility rule), and `ctx` reaches the handler exactly as sent.
 */
export function parsePackRequest(value: unknown): ParseResult<PackRequest> {
  return guarded(() => checkRequest(value, true));
}

function checkRequest(value: unknown, mayBeTooDeep: boolean): ParseResult<PackRequest> {
  const checked = checkMessage(value, REQUEST_KINDS, 'request');
  // Checked last, so only a message that is otherwise valid pays for the walk.
  if (checked.kind === 'ok' && mayBeTooDeep && exceedsJsonDepth(value)) {
    return malformed(`Message nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
  }
  return checked;
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
 * Checks a decoded response against specs/pack-protocol.schema.json (`$defs/response`): a `check-result`
 * needs a boolean `result.passed`, an `error` a known `code` and a string `message`. Unknown fields are kept.
 */
export function parsePackResponse(value: unknown): ParseResult<PackResponse> {
  return guarded(() => checkMessage(value, RESPONSE_KINDS, 'response'));
}
