import { Readable } from 'node:stream';
import type { BlobPutInput } from '@kindgi/bindings';
import busboy from 'busboy';
import type { Context } from 'hono';
import type { AppEnv } from '../../env.js';
import { ApiError } from '../../errors/api-error.js';
import { apiErrorFromBlob } from '../../errors/blob-errors.js';
import { mountPrefix } from '../../middleware/mount-prefix.js';
import type { ArtifactDeps } from './handlers.js';
import { type UploadFields, uploadFieldsFrom } from './upload-fields.js';

// Room for the multipart framing and text fields around the file when judging Content-Length up front.
const FRAMING_ALLOWANCE = 256 * 1024;

class TooLarge extends Error {}

/**
 * `POST /v1/artifacts`: streams the `file` part into the blob binding as it arrives. Text fields must come
 * before the file (their values are needed to start the store); the file is never held whole in memory.
 */
export async function handleUpload(c: Context<AppEnv>, deps: ArtifactDeps): Promise<Response> {
  const { tenantId, userId } = c.get('principal');
  const contentType = c.req.header('content-type') ?? '';
  if (!/^multipart\/form-data\s*;/i.test(contentType)) {
    throw new ApiError('bad-input', 'Upload with Content-Type: multipart/form-data (with a boundary).');
  }
  const declared = Number(c.req.header('content-length'));
  if (Number.isFinite(declared) && declared > deps.maxBytes + FRAMING_ALLOWANCE) {
    throw tooLarge(deps.maxBytes);
  }
  const body = c.req.raw.body;
  if (body === null) throw new ApiError('bad-input', 'The upload has no body; send a `file` part.');

  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { 'content-type': contentType },
      limits: { fileSize: deps.maxBytes, files: 1, fields: 16, fieldSize: 64 * 1024, parts: 17 },
    });
  } catch (thrown) {
    throw new ApiError('bad-input', `Unreadable multipart body: ${(thrown as Error).message}`);
  }

  const fields = new Map<string, string>();
  let failure: ApiError | undefined;
  let sawFile = false;
  let stored: Promise<Awaited<ReturnType<typeof deps.blobStorage.put>> | null> | undefined;
  let fileTooLarge = false;

  parser.on('field', (name, value, info) => {
    if (sawFile) {
      failure ??= new ApiError('bad-input', `Send the text field '${name}' before the file part.`);
      return;
    }
    if (info.valueTruncated) failure ??= new ApiError('bad-input', `The field '${name}' is too long.`);
    fields.set(name, value);
  });
  parser.on('file', (name, stream, info) => {
    // busboy destroys the part with an error when the body ends or breaks inside it; that error also
    // reaches the parser (answered below) and the store's read, so here it only must not go unhandled.
    stream.on('error', () => undefined);
    if (name !== 'file' || sawFile) {
      failure ??= new ApiError('unknown-field', `Unexpected file part '${name}'; send one part named 'file'.`, {
        fields: [name],
      });
      stream.resume();
      return;
    }
    sawFile = true;
    let parsed: UploadFields;
    try {
      parsed = uploadFieldsFrom(fields, info);
    } catch (thrown) {
      failure ??= thrown as ApiError;
      stream.resume();
      return;
    }
    stream.on('limit', () => {
      fileTooLarge = true;
    });
    const bytes = (async function* () {
      // Not destroyed when the store stops reading early: the rest is drained below so busboy can finish.
      for await (const chunk of stream.iterator({ destroyOnReturn: false })) yield chunk as Uint8Array;
      // busboy stops counting at the limit and drops the rest: the store must not keep a truncated file.
      if (fileTooLarge) throw new TooLarge('over the size limit');
    })();
    stored = (async () => {
      if (parsed.ownerRunId !== undefined && deps.runStore !== undefined) {
        const run = await deps.runStore.get(tenantId, parsed.ownerRunId);
        if (run.kind === 'err') {
          failure ??= new ApiError('storage-unavailable', 'The run store failed; retry later.');
          stream.resume();
          return null;
        }
        if (run.value === null) {
          failure ??= new ApiError('run-not-found', 'ownerRunId names no run of this tenant.', {
            ownerRunId: parsed.ownerRunId,
          });
          stream.resume();
          return null;
        }
      }
      const input: BlobPutInput = { ...parsed, bytes };
      if (userId !== undefined) input.createdBy = `user:${userId}`;
      return deps.blobStorage.put(tenantId, input);
    })().finally(() => stream.resume());
  });
  parser.on('partsLimit', () => {
    failure ??= new ApiError('bad-input', 'Too many parts in the upload.');
  });
  parser.on('fieldsLimit', () => {
    failure ??= new ApiError('bad-input', 'Too many fields in the upload.');
  });

  const parsed = new Promise<void>((resolve, reject) => {
    parser.on('close', resolve);
    parser.on('error', reject);
  });
  const source = Readable.fromWeb(body as import('node:stream/web').ReadableStream<Uint8Array>);
  source.on('error', (error) => parser.destroy(error));
  source.pipe(parser);
  try {
    await parsed;
  } catch (thrown) {
    source.destroy();
    await stored?.catch(() => undefined);
    throw new ApiError('bad-input', `Unreadable multipart body: ${(thrown as Error).message}`);
  }
  const result = await stored;
  if (fileTooLarge) {
    if (result?.kind === 'ok') await deps.blobStorage.delete(tenantId, result.value.blobId);
    throw tooLarge(deps.maxBytes);
  }
  if (failure !== undefined) {
    // A late text field or a second file arrived after this blob was stored: undo it, answer the error.
    if (result?.kind === 'ok') await deps.blobStorage.delete(tenantId, result.value.blobId);
    throw failure;
  }
  if (!sawFile || result === undefined) throw new ApiError('bad-input', "The upload needs a part named 'file'.");
  if (result === null) throw new ApiError('bad-input', 'The upload was refused.');
  if (result.kind === 'err') throw apiErrorFromBlob(result.error);
  c.header('location', `${mountPrefix(c)}/v1/artifacts/${encodeURIComponent(result.value.blobId)}`);
  return c.json(result.value, 201);
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError('artifact-too-large', `Artifacts are limited to ${maxBytes} bytes.`, { maxBytes });
}
