import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BlobStorageBinding } from '@kindgi/bindings';
import type { Result } from '@kindgi/protocol';

/** A blob storage a test opened in a folder of its own. */
export interface TempDirStorage<S> {
  storage: S;
  /** The folder the storage keeps its data in. */
  dataDir: string;
  /** Closes the storage and deletes its folder. */
  close(): void;
}

/**
 * Opens a blob storage (`openFsBlobStorage`, say) in a fresh temporary folder. Throws with the opener's
 * message when it fails: a test cannot go on without its storage.
 */
export function openStorageInTempDir<S extends BlobStorageBinding & { close(): void }>(
  prefix: string,
  open: (dataDir: string) => Result<S, { message: string }>,
): TempDirStorage<S> {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  const opened = open(dataDir);
  if (opened.kind === 'err') {
    rmSync(dataDir, { recursive: true, force: true });
    throw new Error(opened.error.message);
  }
  return {
    storage: opened.value,
    dataDir,
    close: () => {
      opened.value.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
