import { createHash } from 'node:crypto';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import {
  type BlobBody,
  type BlobError,
  type BodyDigests,
  type BodyExpectations,
  consumeBody,
  MAX_MULTIPART_PARTS,
} from '@kindgi/bindings';
import { err, messageOf, ok, type Result } from '@kindgi/protocol';

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

const base64Md5 = (hex: string): string => Buffer.from(hex, 'hex').toString('base64');

/**
 * The bytes of blobs in one bucket of an S3-compatible store. A body streams through in parts of
 * `partSize` bytes (at most one part is held in memory): a body that fits in one part is sent with one
 * PutObject, a larger one as a multipart upload. Every request carries the bytes' Content-MD5, so the
 * store refuses what it did not receive intact.
 */
export class ObjectStore {
  constructor(
    readonly client: S3Client,
    readonly bucket: string,
    readonly partSize: number,
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
   * `onMultipart` learns the store's upload id before the first part is sent (for the sweep). A body that
   * fails leaves nothing behind when the cleanup succeeds (`cleaned`).
   */
  async write(
    objectKey: string,
    body: BlobBody,
    expect: BodyExpectations,
    onMultipart: (uploadId: string) => Promise<void>,
  ): Promise<Result<BodyDigests, BlobError> & { cleaned?: boolean }> {
    let chunks: Uint8Array[] = [];
    let buffered = 0;
    let uploadId: string | undefined;
    const parts: { PartNumber: number; ETag: string }[] = [];
    const Bucket = this.bucket;
    const sendPart = async () => {
      const data = Buffer.concat(chunks, buffered);
      chunks = [];
      buffered = 0;
      if (uploadId === undefined) {
        const created = await this.client.send(new CreateMultipartUploadCommand({ Bucket, Key: objectKey }));
        if (created.UploadId === undefined) throw new Error('the store answered CreateMultipartUpload without an id');
        uploadId = created.UploadId;
        await onMultipart(uploadId);
      }
      const PartNumber = parts.length + 1;
      if (PartNumber > MAX_MULTIPART_PARTS) throw new Error('the body needs more than 10000 parts');
      const md5 = createHash('md5').update(data).digest('hex');
      const sent = await this.client.send(
        new UploadPartCommand({
          Bucket,
          Key: objectKey,
          UploadId: uploadId,
          PartNumber,
          Body: data,
          ContentLength: data.byteLength,
          ContentMD5: base64Md5(md5),
        }),
      );
      parts.push({ PartNumber, ETag: sent.ETag ?? `"${md5}"` });
    };
    const consumed = await consumeBody(
      body,
      async (chunk) => {
        chunks.push(chunk);
        buffered += chunk.byteLength;
        if (buffered >= this.partSize) await sendPart();
      },
      expect,
    );
    if (consumed.kind === 'err') return { ...consumed, cleaned: await this.discardUpload(objectKey, uploadId) };
    try {
      if (uploadId === undefined) {
        const data = Buffer.concat(chunks, buffered);
        await this.client.send(
          new PutObjectCommand({
            Bucket,
            Key: objectKey,
            Body: data,
            ContentLength: data.byteLength,
            ContentMD5: base64Md5(consumed.value.md5),
          }),
        );
      } else {
        if (buffered > 0) await sendPart();
        await this.client.send(
          new CompleteMultipartUploadCommand({
            Bucket,
            Key: objectKey,
            UploadId: uploadId,
            MultipartUpload: { Parts: parts },
          }),
        );
      }
      return consumed;
    } catch (cause) {
      return { ...objectStoreError('store the body', cause), cleaned: await this.discardUpload(objectKey, uploadId) };
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
