import {
  exceedsJsonDepth,
  MAX_JSON_DEPTH,
  type PackErrorExtra,
  type PackResponse,
  packError,
  parsePackResponse,
} from '@kindgi/protocol';

/**
 * A decoded 200 reply as the v2 message it must be. JSON that nests past `MAX_JSON_DEPTH` or is no v2
 * response message (a `result` without `output`, say) is the pack breaking the protocol, whatever pack it
 * is: it becomes the protocol's own error message (`malformed-message`, `unknown-protocol-version`,
 * `unexpected-message-kind`), which callers report as a protocol error, never as a result.
 */
export function replyMessage(value: unknown, subject: PackErrorExtra): PackResponse {
  // Depth first: nothing else walks the value before it is known to be shallow enough to walk.
  if (exceedsJsonDepth(value)) {
    const message = `The pack's reply nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`;
    return packError('malformed-message', message, subject);
  }
  const parsed = parsePackResponse(value);
  if (parsed.kind === 'ok') return parsed.value;
  return packError(parsed.error.code, `The pack's reply is not a v2 message: ${parsed.error.message}`, subject);
}
