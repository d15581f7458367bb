import { randomUUID } from 'node:crypto';
import { type BlobBytesPort, type BlobStorageBinding, consumeBody, createBlobStorage } from '@kindgi/bindings';
import { ok } from '@kindgi/protocol';
import { memoryRows } from './memory-rows.js';

const CHUNK = 64 * 1024;

function streamOf(bytes: Buffer): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) {
        controller.close();
        return;
      }
      // A copy, so a consumer that mutates chunks cannot change what is stored.
      controller.enqueue(new Uint8Array(bytes.subarray(offset, offset + CHUNK)));
      offset += CHUNK;
    },
  });
}

/** Bytes held in memory, by a random ref; a chunk is copied as it arrives, since a caller may reuse it. */
function memoryBytes(): BlobBytesPort {
  const stored = new Map<string, Buffer>();
  return {
    async write(_target, body, expect) {
      const chunks: Buffer[] = [];
      const digests = await consumeBody(body, (chunk) => void chunks.push(Buffer.from(chunk)), expect);
      if (digests.kind === 'err') return digests;
      const ref = randomUUID();
      stored.set(ref, Buffer.concat(chunks));
      return ok({ ref, ...digests.value });
    },
    async read(ref, start, end) {
      const bytes = stored.get(ref);
      return bytes === undefined ? null : streamOf(bytes.subarray(start, Math.max(start, end + 1)));
    },
    async discard(refs) {
      for (const ref of refs) stored.delete(ref);
    },
    async abandon(ref) {
      stored.delete(ref);
    },
  };
}

/**
 * A `BlobStorageBinding` held in memory: correct for development and tests, gone when the process ends. It is
 * the shared blob core over memory ports, so it keeps every rule the durable storages keep.
 */
export function createInMemoryBlobStorage(): BlobStorageBinding {
  return createBlobStorage({ rows: memoryRows(), bytes: memoryBytes() });
}
