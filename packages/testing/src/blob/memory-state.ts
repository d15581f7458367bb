import type { BlobChecksums, BlobMeta, CompletedPart, MultipartInitInput } from '@kindgi/bindings';
import { compareKeys, type ScanBound } from '@kindgi/bindings';

/** An object held in memory; `sequence` orders `list` (newest first). */
export interface StoredBlob {
  meta: BlobMeta;
  bytes: Buffer;
  sequence: number;
}

/** A multipart upload in progress, or completed and kept for retried completions. */
export interface MemoryUpload {
  uploadId: string;
  bucket: string;
  key: string;
  init: MultipartInitInput;
  parts: Map<number, { bytes: Buffer; etag: string; size: number; lastModified: string; checksums?: BlobChecksums }>;
  /** ISO 8601: when the upload was initiated. */
  createdAt: string;
  /** Set once completed: the part list and the answer a retry gets. */
  completed?: { parts: CompletedPart[]; meta: BlobMeta; at: string };
}

/** One bucket's keys, kept sorted in code-unit order so listing seeks by binary search. */
export class KeyIndex {
  private readonly keys: string[] = [];
  private readonly blobs = new Map<string, StoredBlob>();

  get(key: string): StoredBlob | undefined {
    return this.blobs.get(key);
  }

  set(key: string, blob: StoredBlob): void {
    if (!this.blobs.has(key)) this.keys.splice(this.lowerBound(key), 0, key);
    this.blobs.set(key, blob);
  }

  delete(key: string): void {
    if (!this.blobs.delete(key)) return;
    this.keys.splice(this.lowerBound(key), 1);
  }

  /** The first key at or after `bound`. */
  first(bound: ScanBound | undefined): { key: string; blob: StoredBlob } | undefined {
    let at = bound === undefined ? 0 : this.lowerBound(bound.key);
    if (bound !== undefined && !bound.inclusive && this.keys[at] === bound.key) at++;
    const key = this.keys[at];
    return key === undefined ? undefined : { key, blob: this.blobs.get(key)! };
  }

  private lowerBound(key: string): number {
    let low = 0;
    let high = this.keys.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (compareKeys(this.keys[mid]!, key) < 0) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}

/** Everything one tenant stores; tenants never see each other's state. */
export class TenantState {
  readonly byId = new Map<string, StoredBlob>();
  readonly buckets = new Map<string, KeyIndex>();
  readonly uploads = new Map<string, MemoryUpload>();

  at(bucket: string, key: string): StoredBlob | undefined {
    return this.buckets.get(bucket)?.get(key);
  }

  /** Makes `blob` the object at its address, replacing (last write wins) whatever was there. */
  store(blob: StoredBlob): void {
    const { bucket, key } = blob.meta;
    let index = this.buckets.get(bucket);
    if (index === undefined) {
      index = new KeyIndex();
      this.buckets.set(bucket, index);
    }
    const previous = index.get(key);
    if (previous !== undefined) this.byId.delete(previous.meta.blobId);
    index.set(key, blob);
    this.byId.set(blob.meta.blobId, blob);
  }

  remove(blobId: string): boolean {
    const blob = this.byId.get(blobId);
    if (blob === undefined) return false;
    this.byId.delete(blobId);
    this.buckets.get(blob.meta.bucket)?.delete(blob.meta.key);
    return true;
  }
}
