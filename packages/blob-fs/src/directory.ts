import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { type FileHandle, mkdir, open, rename, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { BlobBody, BlobError } from '@kindgi/bindings';
import { type BodyDigests, type BodyExpectations, consumeBody } from '@kindgi/bindings';
import { err, ok, type Result } from '@kindgi/protocol';

const READ_CHUNK = 256 * 1024;

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

/** Unlinks a file, treating "already gone" as done. */
export async function removeQuietly(path: string): Promise<void> {
  await unlink(path).catch(() => undefined);
}

/**
 * The on-disk layout of a blob directory. Object bytes live in files named by blobId (sharded by its first
 * two characters), parts in files named by upload, part number and a nonce, and bodies in flight in `tmp/`.
 * Keys never reach a path, so no key can escape the directory.
 */
export class BlobDirectory {
  readonly tmp: string;
  readonly blobs: string;
  readonly parts: string;

  constructor(readonly root: string) {
    this.tmp = join(root, 'tmp');
    this.blobs = join(root, 'blobs');
    this.parts = join(root, 'parts');
    for (const dir of [this.tmp, this.blobs, this.parts]) mkdirSync(dir, { recursive: true });
  }

  blobPath(blobId: string): string {
    return join(this.blobs, blobId.slice(0, 2), blobId);
  }

  partPath(file: string): string {
    return join(this.parts, file);
  }

  /** Streams a body into a fresh temporary file, hashing as it goes, then fsyncs it. Nothing is left on failure. */
  async receive(body: BlobBody, expect: BodyExpectations): Promise<Result<{ temp: string } & BodyDigests, BlobError>> {
    const temp = join(this.tmp, `${process.pid}-${randomUUID()}`);
    let handle: FileHandle | undefined;
    try {
      handle = await open(temp, 'wx');
      const file = handle;
      const digests = await consumeBody(body, (chunk) => writeAll(file, chunk), expect);
      if (digests.kind === 'err') {
        await handle.close();
        await removeQuietly(temp);
        return digests;
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

  /**
   * Like `receive`, but a body of at most `inlineMax` bytes stays in memory (`inline`), for the caller to keep in
   * the database; a longer one spills to a temporary file as soon as it passes the limit.
   */
  async receiveSmall(
    body: BlobBody,
    expect: BodyExpectations,
    inlineMax: number,
  ): Promise<Result<({ inline: Buffer } | { temp: string }) & BodyDigests, BlobError>> {
    if (expect.size !== undefined && expect.size > inlineMax) return this.receive(body, expect);
    const temp = join(this.tmp, `${process.pid}-${randomUUID()}`);
    let chunks: Uint8Array[] = [];
    let total = 0;
    let handle: FileHandle | undefined;
    const sink = async (chunk: Uint8Array) => {
      if (handle !== undefined) return writeAll(handle, chunk);
      chunks.push(chunk);
      total += chunk.byteLength;
      if (total <= inlineMax) return;
      handle = await open(temp, 'wx');
      for (const held of chunks) await writeAll(handle, held);
      chunks = [];
    };
    try {
      const digests = await consumeBody(body, sink, expect);
      if (digests.kind === 'err' || handle === undefined) {
        await handle?.close();
        if (handle !== undefined) await removeQuietly(temp);
        return digests.kind === 'err' ? digests : ok({ inline: Buffer.concat(chunks, total), ...digests.value });
      }
      await handle.sync();
      await handle.close();
      return ok({ temp, ...digests.value });
    } catch (cause) {
      await handle?.close().catch(() => undefined);
      await removeQuietly(temp);
      return err({ code: 'blob-storage-error', message: 'writing the body failed', cause });
    }
  }

  /** Concatenates files into a temporary file, fsynced, returning its sha256 and size. */
  async concatenate(
    paths: readonly string[],
  ): Promise<Result<{ temp: string; size: number; sha256: string }, BlobError>> {
    const temp = join(this.tmp, `${process.pid}-${randomUUID()}`);
    const hash = createHash('sha256');
    let size = 0;
    let out: FileHandle | undefined;
    try {
      out = await open(temp, 'wx');
      const buffer = Buffer.allocUnsafe(READ_CHUNK);
      for (const path of paths) {
        const input = await open(path, 'r');
        try {
          for (;;) {
            const { bytesRead } = await input.read(buffer, 0, buffer.length, null);
            if (bytesRead === 0) break;
            const chunk = buffer.subarray(0, bytesRead);
            hash.update(chunk);
            await writeAll(out, chunk);
            size += bytesRead;
          }
        } finally {
          await input.close();
        }
      }
      await out.sync();
      await out.close();
      return ok({ temp, size, sha256: hash.digest('hex') });
    } catch (cause) {
      await out?.close().catch(() => undefined);
      await removeQuietly(temp);
      return err({ code: 'blob-storage-error', message: 'assembling the multipart object failed', cause });
    }
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
