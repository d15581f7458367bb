import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { type FileHandle, mkdir, open, rename, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { BlobBody, BlobBytesPort, BlobError, BytesTarget, WrittenBytes } from '@kindgi/bindings';
import { type BodyDigests, type BodyExpectations, consumeBody } from '@kindgi/bindings';
import { err, ok, type Result } from '@kindgi/protocol';
import type { SqliteBlobRefs } from '@kindgi/store-sqlite';
import { fileStream } from './file-stream.js';

async function writeAll(handle: FileHandle, chunk: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < chunk.byteLength) {
    const { bytesWritten } = await handle.write(chunk, offset, chunk.byteLength - offset);
    offset += bytesWritten;
  }
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The ref of an object's file: sharded by the blobId's first two characters. */
export function blobRef(blobId: string): string {
  return `blobs/${blobId.slice(0, 2)}/${blobId}`;
}

/** The ref of a part's file, and back. */
export const partRef = (file: string): string => `parts/${file}`;
const partFile = (ref: string): string => ref.slice('parts/'.length);

/** This layout's refs, as the SQLite rows name the bytes they point at. */
export const FILE_REFS: SqliteBlobRefs = { object: blobRef, part: partRef, partFile };

/** Unlinks a file, treating "already gone" as done. */
export async function removeQuietly(path: string): Promise<void> {
  await unlink(path).catch(() => undefined);
}

/**
 * The on-disk layout of a blob directory. Object bytes live in files named by blobId (sharded by its first
 * two characters), parts in files named by upload, part number and a nonce, and bodies in flight in `tmp/`.
 * Keys never reach a path, so no key can escape the directory.
 */
export class BlobDirectory implements BlobBytesPort {
  readonly tmp: string;
  readonly blobs: string;
  readonly parts: string;

  /** `inlineMax`: objects up to this many bytes are handed to the rows to keep (`WrittenBytes.inline`). */
  constructor(
    readonly root: string,
    private readonly inlineMax: number,
  ) {
    this.tmp = join(root, 'tmp');
    this.blobs = join(root, 'blobs');
    this.parts = join(root, 'parts');
    for (const dir of [this.tmp, this.blobs, this.parts]) mkdirSync(dir, { recursive: true });
  }

  /** The file of a ref (a path below the root: `blobs/<shard>/<blobId>` or `parts/<file>`). */
  path(ref: string): string {
    return join(this.root, ref);
  }

  /**
   * Streams a body into a fresh temporary file, hashing as it goes, then fsyncs it; nothing is left on failure.
   * With `inlineMax`, a body of at most that many bytes stays in memory instead (`inline`, for the caller to keep
   * in the database), and a longer one spills to the file as soon as it passes the limit.
   */
  async receive(
    body: BlobBody,
    expect: BodyExpectations,
    inlineMax?: number,
  ): Promise<Result<({ inline: Buffer } | { temp: string }) & BodyDigests, BlobError>> {
    const temp = join(this.tmp, `${process.pid}-${randomUUID()}`);
    let chunks: Buffer[] = [];
    let total = 0;
    let handle: FileHandle | undefined;
    const sink = async (chunk: Uint8Array) => {
      if (handle !== undefined) return writeAll(handle, chunk);
      // consumeBody lends what it hands over: what is kept past this call is copied.
      chunks.push(Buffer.from(chunk));
      total += chunk.byteLength;
      if (total <= inlineMax!) return;
      handle = await open(temp, 'wx');
      for (const held of chunks) await writeAll(handle, held);
      chunks = [];
    };
    try {
      if (inlineMax === undefined || (expect.size !== undefined && expect.size > inlineMax)) {
        handle = await open(temp, 'wx');
      }
      const digests = await consumeBody(body, sink, expect);
      if (digests.kind === 'err' || handle === undefined) {
        await handle?.close();
        if (handle !== undefined) await removeQuietly(temp);
        if (digests.kind === 'err') return digests;
        return ok({ inline: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total), ...digests.value });
      }
      await handle.sync();
      await handle.close();
      return ok({ temp, ...digests.value });
    } catch (cause) {
      await handle?.close().catch(() => undefined);
      await removeQuietly(temp);
      return err({ code: 'blob-storage-error', message: 'writing the body to disk failed', cause });
    }
  }

  async write(target: BytesTarget, body: BlobBody, expect: BodyExpectations): Promise<Result<WrittenBytes, BlobError>> {
    const received = await this.receive(body, expect, target.kind === 'object' ? this.inlineMax : undefined);
    if (received.kind === 'err') return received;
    const ref =
      target.kind === 'part'
        ? partRef(`${target.uploadId}.${target.partNumber}.${randomUUID()}`)
        : blobRef(target.blobId);
    if ('inline' in received.value) return ok({ ref, ...received.value });
    const { temp, ...digests } = received.value;
    const published = await this.publish(temp, this.path(ref));
    return published.kind === 'err' ? published : ok({ ref, ...digests });
  }

  async read(ref: string, start: number, end: number): Promise<ReadableStream<Uint8Array> | null> {
    let handle: FileHandle;
    try {
      handle = await open(this.path(ref), 'r');
    } catch (cause) {
      // Replaced or deleted between the row lookup and the open.
      if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw cause;
    }
    return fileStream(handle, start, end);
  }

  async discard(refs: readonly string[]): Promise<void> {
    for (const ref of refs) await removeQuietly(this.path(ref));
  }

  /** A failed SQLite commit rolled back: nothing references the bytes. */
  async abandon(ref: string): Promise<void> {
    await removeQuietly(this.path(ref));
  }

  /** Moves a finished temporary file to its final name and fsyncs the directory, so the rename is durable. */
  async publish(temp: string, target: string): Promise<Result<true, BlobError>> {
    try {
      const dir = dirname(target);
      // A directory created here is itself an entry in its parent, which must be synced too.
      const created = await mkdir(dir, { recursive: true });
      await rename(temp, target);
      await syncDirectory(dir);
      if (created !== undefined) await syncDirectory(dirname(dir));
      return ok(true);
    } catch (cause) {
      await removeQuietly(temp);
      return err({ code: 'blob-storage-error', message: 'moving the body into place failed', cause });
    }
  }

  /**
   * Removes what a crash can leave behind: every temporary file, every object file without a row, every part
   * file without a row. Runs once at open, while this process owns the directory.
   */
  sweepFiles(hasBlob: (blobId: string) => boolean, hasPart: (file: string) => boolean): number {
    let removed = 0;
    for (const name of readdirSync(this.tmp)) {
      rmSync(join(this.tmp, name), { force: true, recursive: true });
      removed++;
    }
    for (const shard of readdirSync(this.blobs)) {
      for (const name of readdirSync(join(this.blobs, shard))) {
        if (!hasBlob(name)) {
          rmSync(join(this.blobs, shard, name), { force: true });
          removed++;
        }
      }
    }
    for (const name of readdirSync(this.parts)) {
      if (!hasPart(name)) {
        rmSync(join(this.parts, name), { force: true });
        removed++;
      }
    }
    return removed;
  }
}
