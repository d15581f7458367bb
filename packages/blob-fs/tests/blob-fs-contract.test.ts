import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeBlobStorageContract } from '@kindgi/testing/contract-suite';
import { openFsBlobStorage } from '../src/index.js';

describeBlobStorageContract('filesystem (blob-fs)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'kindgi-blob-fs-'));
  const opened = openFsBlobStorage({ dataDir });
  if (opened.kind === 'err') throw new Error(opened.error.message);
  return {
    storage: opened.value,
    close: () => {
      opened.value.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
});
