import type { BlobMeta } from '@kindgi/bindings';
import { compareKeys, type ScanBound } from '@kindgi/bindings';

/** An object's row held in memory; `sequence` orders `list` (newest first). */
export interface StoredBlob {
  meta: BlobMeta;
  ref: string;
  sequence: number;
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

  /** Up to `limit` objects from `bound` onwards, in key order. */
  scan(bound: ScanBound | undefined, limit: number): StoredBlob[] {
    let at = bound === undefined ? 0 : this.lowerBound(bound.key);
    if (bound !== undefined && !bound.inclusive && this.keys[at] === bound.key) at++;
    return this.keys.slice(at, at + limit).map((key) => this.blobs.get(key)!);
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

/** Every object one tenant stores; tenants never see each other's objects. */
export class TenantState {
  readonly byId = new Map<string, StoredBlob>();
  readonly buckets = new Map<string, KeyIndex>();

  at(bucket: string, key: string): StoredBlob | undefined {
    return this.buckets.get(bucket)?.get(key);
  }

  /** Makes `blob` the object at its address, returning the one it replaced. */
  store(blob: StoredBlob): StoredBlob | undefined {
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
    return previous;
  }

  remove(blob: StoredBlob): void {
    this.byId.delete(blob.meta.blobId);
    this.buckets.get(blob.meta.bucket)?.delete(blob.meta.key);
  }
}
