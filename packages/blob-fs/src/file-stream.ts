import type { FileHandle } from 'node:fs/promises';

const CHUNK = 1024 * 1024;

/**
 * Bytes `start..end` (inclusive) of an open file as a web stream, read on demand. The handle was opened before
 * the stream was made, so replacing or deleting the object meanwhile cannot cut a download short.
 */
export function fileStream(handle: FileHandle, start: number, end: number): ReadableStream<Uint8Array> {
  let position = start;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await handle.close().catch(() => undefined);
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const remaining = end + 1 - position;
        if (remaining <= 0) {
          await close();
          controller.close();
          return;
        }
        const buffer = Buffer.allocUnsafe(Math.min(CHUNK, remaining));
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
        if (bytesRead === 0) throw new Error(`the object file ended at byte ${position}, before byte ${end}`);
        position += bytesRead;
        controller.enqueue(buffer.subarray(0, bytesRead));
      } catch (error) {
        await close();
        controller.error(error);
      }
    },
    cancel: close,
  });
}
