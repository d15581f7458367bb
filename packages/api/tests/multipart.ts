/** A hand-framed multipart/form-data body, so tests control part order and streaming. */
export function multipartParts(
  parts: ({ name: string; value: string } | { name: string; filename: string; type?: string; bytes: Uint8Array })[],
  boundary = 'kindgi-test-boundary',
): { chunks: Uint8Array[]; contentType: string } {
  const encoder = new TextEncoder();
  const chunks: Uint8Array[] = [];
  for (const part of parts) {
    if ('value' in part) {
      chunks.push(
        encoder.encode(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}\r\n`),
      );
    } else {
      chunks.push(
        encoder.encode(
          `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"; filename="${part.filename}"\r\n` +
            `Content-Type: ${part.type ?? 'application/octet-stream'}\r\n\r\n`,
        ),
      );
      chunks.push(part.bytes);
      chunks.push(encoder.encode('\r\n'));
    }
  }
  chunks.push(encoder.encode(`--${boundary}--\r\n`));
  return { chunks, contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Streams chunks as a request body with no Content-Length. */
export function chunkedBody(
  chunks: Uint8Array[],
  beforeChunk?: (index: number) => Promise<void>,
): ReadableStream<Uint8Array> {
  let index = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (index >= chunks.length) {
        controller.close();
        return;
      }
      await beforeChunk?.(index);
      controller.enqueue(chunks[index]!);
      index += 1;
    },
  });
}
