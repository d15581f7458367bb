import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import {
  type BlobBody,
  type BlobError,
  type BodyDigests,
  type BodyExpectations,
  type ByteBudget,
  consumeBody,
} from '@kindgi/bindings';
import { err, messageOf, ok, type Result } from '@kindgi/protocol';
import { PartWriter } from './part-writer.js';

/** The bytes every upload of one storage may buffer at once, and how long a new upload waits for its share. */
export interface UploadBuffers {
  budget: ByteBudget;
  waitMs: number;
}

/** An upload refused because the buffers stayed spent: the caller answers 503 (S3 `SlowDown`) and retries. */
function uploadBuffersBusy(limit: number): Result<never, BlobError> {
  const mib = Math.round(limit / (1024 * 1024));
  return err({
    code: 'storage-busy',
    message: `every upload buffer (${mib} MiB in all) is in use; retry shortly`,
    retryAfterSeconds: 1,
  });
}

/** A failure of the object store (unreachable, refusing, timing out) as the storage error callers get. */
export function objectStoreError(action: string, cause: unknown): Result<never, BlobError> {
  const name = cause instanceof Error ? cause.name : 'Error';
  const message = messageOf(cause);
  return err({
    code: 'blob-storage-error',
    message: `the object store failed to ${action}: ${name}: ${message}`,
    cause,
  });
}

function isMissing(cause: unknown): boolean {
  const name = (cause as { name?: unknown } | null)?.name;
  const status = (cause as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
  return name === 'NoSuchKey' || name === 'NotFound' || name === 'NoSuchUpload' || status === 404;
}

/**
 * The bytes of blobs in one bucket of an S3-compatible store. A body streams through a buffer of
 * `partSize` bytes (the one buffer it holds, out of the shared upload budget): a body that fits is sent
 * with one PutObject, a larger one as a multipart upload. Every request carries the bytes' Content-MD5, so
 * the store refuses what it did not receive intact.
 */
export class ObjectStore {
  constructor(
    readonly client: S3Client,
    readonly bucket: string,
    readonly partSize: number,
    private readonly uploads: UploadBuffers,
  ) {}

  /**
   * Fails with the store's answer when the bucket is missing or the credentials cannot reach it; `signal`
   * bounds the request (retries included), so a store that hangs fails instead.
   */
  async checkBucket(signal?: AbortSignal): Promise<Result<true, BlobError>> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }), signal ? { abortSignal: signal } : {});
      return ok(true);
    } catch (cause) {
      const status = (cause as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      const why = status === 404 ? 'does not exist' : status === 403 ? 'refuses these credentials' : 'is unreachable';
      const detail = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
      return err({ code: 'blob-storage-error', message: `the bucket ${this.bucket} ${why} (${detail})`, cause });
    }
  }

  /**
   * Streams a body to `objectKey`, checking it against `expect` before the last request completes it.
   * `onMultipart` learns the store's upload id before the first part is sent (for the sweep). The body's
   * buffer (one part, or the declared size when smaller) comes out of the upload budget first: when the
   * budget stays spent for its wait, the write is refused (`storage-busy`) before a byte is read. A body that
   * fails leaves nothing behind when the cleanup succeeds (`cleaned`).
   */
  async write(
    objectKey: string,
    body: BlobBody,
    expect: BodyExpectations,
    onMultipart: (uploadId: string) => Promise<void>,
  ): Promise<Result<BodyDigests, BlobError> & { cleaned?: boolean }> {
    const { budget, waitMs } = this.uploads;
    const lease = await budget.acquire(Math.min(this.partSize, expect.size ?? this.partSize), waitMs);
    if (lease === undefined) return { ...uploadBuffersBusy(budget.limit), cleaned: true };
    try {
      const writer = new PartWriter({ client: this.client, bucket: this.bucket, objectKey, onMultipart }, lease.bytes);
      const consumed = await consumeBody(body, (chunk) => writer.take(chunk), expect);
      if (consumed.kind === 'err')
        return { ...consumed, cleaned: await this.discardUpload(objectKey, writer.uploadId) };
      try {
        await writer.finish(consumed.value.md5);
        return consumed;
      } catch (cause) {
        const failed = objectStoreError('store the body', cause);
        return { ...failed, cleaned: await this.discardUpload(objectKey, writer.uploadId) };
      }
    } finally {
      lease.release();
    }
  }

  /** Bytes `start..end` (inclusive) of an object, or `null` when it is gone (replaced meanwhile). */
  async read(objectKey: string, start: number, end: number): Promise<ReadableStream<Uint8Array> | null> {
    try {
      const answer = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: objectKey,
          ...(end >= start ? { Range: `bytes=${start}-${end}` } : {}),
        }),
      );
      if (answer.Body === undefined) throw new Error('the store answered GetObject without a body');
      if (end < start) {
        // An empty object: nothing to stream, and a Range on it would be unsatisfiable.
        await answer.Body.transformToByteArray();
        return new ReadableStream({ start: (controller) => controller.close() });
      }
      return answer.Body.transformToWebStream();
    } catch (cause) {
      if (isMissing(cause)) return null;
      throw cause;
    }
  }

  /** Deletes an object (and aborts its multipart upload when given); true once it is gone. */
  async remove(objectKey: string, backendUploadId?: string): Promise<boolean> {
    try {
      if (backendUploadId !== undefined) {
        await this.client
          .send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: objectKey, UploadId: backendUploadId }))
          .catch((cause: unknown) => {
            if (!isMissing(cause)) throw cause;
          });
      }
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: objectKey }));
      return true;
    } catch (cause) {
      return isMissing(cause);
    }
  }

  private async discardUpload(objectKey: string, uploadId: string | undefined): Promise<boolean> {
    return uploadId === undefined ? true : this.remove(objectKey, uploadId);
  }
}
