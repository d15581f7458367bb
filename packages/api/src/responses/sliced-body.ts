import type { Context, TypedResponse } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { JSONParsed } from 'hono/utils/types';

/**
 * How much of a body one read hands to the socket. A reader that stops reading holds what the socket took
 * (its buffer plus one slice), never the rest of the body.
 */
export const SLICE_BYTES = 64 * 1024;

/** `bytes` cut into views of at most `SLICE_BYTES` (no copies), in order. */
export function* slicesOf(bytes: Uint8Array): Generator<Uint8Array> {
  for (let offset = 0; offset < bytes.byteLength; offset += SLICE_BYTES) {
    yield bytes.subarray(offset, Math.min(offset + SLICE_BYTES, bytes.byteLength));
  }
}

/**
 * A stream over `parts` that produces one slice per read and nothing ahead of it (high-water mark 0): the
 * HTTP server reads again only once the socket drained, so a slow client paces the body. The parts are
 * shared, never copied.
 */
export function slicedStream(parts: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  const slices = (function* () {
    for (const part of parts) yield* slicesOf(part);
  })();
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const next = slices.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      },
      cancel() {
        slices.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * Answers `bytes` (the JSON text of a `T`) as `application/json` with its length, streamed in slices. Typed
 * as `c.json` would be, so routes keep their declared response type.
 */
export function jsonBytes<T, S extends ContentfulStatusCode>(
  c: Context,
  bytes: Uint8Array,
  status: S,
): Response & TypedResponse<JSONParsed<T>, S, 'json'> {
  c.header('content-type', 'application/json');
  c.header('content-length', String(bytes.byteLength));
  // The bytes are the JSON text of a T: the type says what c.json(value) would have said.
  return c.body(slicedStream([bytes]), status) as unknown as Response & TypedResponse<JSONParsed<T>, S, 'json'>;
}

/** The UTF-8 JSON text of `value`, as bytes. */
export function jsonBytesOf(value: unknown): Uint8Array {
  return Buffer.from(JSON.stringify(value));
}
