import { createHash } from 'node:crypto';
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { MAX_MULTIPART_PARTS } from '@kindgi/bindings';

const base64Md5 = (hex: string): string => Buffer.from(hex, 'hex').toString('base64');

/** Where a body goes: the bucket's key, and who learns the store's upload id before the first part is sent. */
export interface PartTarget {
  client: S3Client;
  bucket: string;
  objectKey: string;
  onMultipart: (uploadId: string) => Promise<void>;
}

/**
 * One body on its way to the store through a single buffer of fixed size (the bytes the budget granted):
 * bytes are copied in as they arrive, and a full buffer is sent as a part only once more bytes follow, so a
 * body that fits is one PutObject and a larger one a multipart upload of full-buffer parts. The buffer is
 * reused part after part: the body never holds more than it.
 */
export class PartWriter {
  private readonly buffer: Buffer;
  private filled = 0;
  private readonly parts: { PartNumber: number; ETag: string }[] = [];
  /** The store's multipart upload id, once a second part's worth of bytes arrived. */
  uploadId: string | undefined;

  constructor(
    private readonly target: PartTarget,
    capacity: number,
  ) {
    // Pages are touched only as bytes arrive: a small body in a large buffer costs what it fills.
    this.buffer = Buffer.allocUnsafeSlow(capacity);
  }

  /** Takes a chunk, sending full buffers ahead of it as parts. */
  async take(chunk: Uint8Array): Promise<void> {
    let offset = 0;
    while (offset < chunk.byteLength) {
      if (this.filled === this.buffer.byteLength) await this.sendPart();
      const count = Math.min(this.buffer.byteLength - this.filled, chunk.byteLength - offset);
      this.buffer.set(chunk.subarray(offset, offset + count), this.filled);
      this.filled += count;
      offset += count;
    }
  }

  /** Sends what is left: the whole body in one PutObject (`md5` its digest), or the last part and completion. */
  async finish(md5: string): Promise<void> {
    const { client, bucket: Bucket, objectKey: Key } = this.target;
    if (this.uploadId === undefined) {
      const data = this.buffer.subarray(0, this.filled);
      await client.send(
        new PutObjectCommand({ Bucket, Key, Body: data, ContentLength: data.byteLength, ContentMD5: base64Md5(md5) }),
      );
      return;
    }
    if (this.filled > 0) await this.sendPart();
    await client.send(
      new CompleteMultipartUploadCommand({
        Bucket,
        Key,
        UploadId: this.uploadId,
        MultipartUpload: { Parts: this.parts },
      }),
    );
  }

  private async sendPart(): Promise<void> {
    if (this.buffer.byteLength === 0) throw new Error('bytes arrived past the declared size');
    const { client, bucket: Bucket, objectKey: Key } = this.target;
    if (this.uploadId === undefined) {
      const created = await client.send(new CreateMultipartUploadCommand({ Bucket, Key }));
      if (created.UploadId === undefined) throw new Error('the store answered CreateMultipartUpload without an id');
      this.uploadId = created.UploadId;
      await this.target.onMultipart(this.uploadId);
    }
    const PartNumber = this.parts.length + 1;
    if (PartNumber > MAX_MULTIPART_PARTS) throw new Error(`the body needs more than ${MAX_MULTIPART_PARTS} parts`);
    const data = this.buffer.subarray(0, this.filled);
    const md5 = createHash('md5').update(data).digest('hex');
    const sent = await client.send(
      new UploadPartCommand({
        Bucket,
        Key,
        UploadId: this.uploadId,
        PartNumber,
        Body: data,
        ContentLength: data.byteLength,
        ContentMD5: base64Md5(md5),
      }),
    );
    this.parts.push({ PartNumber, ETag: sent.ETag ?? `"${md5}"` });
    this.filled = 0;
  }
}
