import { createInMemoryBlobStorage, describeBlobStorageContract } from '../src/index.js';

describeBlobStorageContract('in-memory', () => ({ storage: createInMemoryBlobStorage() }));
