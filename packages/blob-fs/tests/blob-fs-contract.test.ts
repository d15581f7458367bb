import { openStorageInTempDir } from '@kindgi/testing';
import { describeBlobStorageContract } from '@kindgi/testing/contract-suite';
import { openFsBlobStorage } from '../src/index.js';

describeBlobStorageContract('filesystem (blob-fs)', () =>
  openStorageInTempDir('kindgi-blob-fs-', (dataDir) => openFsBlobStorage({ dataDir })),
);
