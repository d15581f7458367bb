import { createInMemorySecretRows } from '../src/index.js';
import { describeSecretStoreContract } from '../src/secrets/contract.js';

describeSecretStoreContract('in memory', async () => ({ rows: createInMemorySecretRows() }));
