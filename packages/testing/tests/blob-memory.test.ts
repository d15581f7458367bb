import { describeBlobStorageContract } from '../src/contract-suite.js';
import { createInMemoryBlobStorage } from '../src/index.js';

describeBlobStorageContract('in-memory', () => ({ storage: createInMemoryBlobStorage() }));
