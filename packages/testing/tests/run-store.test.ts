import { describeRunStoreContract } from '../src/contract-suite.js';
import { createInMemoryRunStore } from '../src/index.js';

describeRunStoreContract('in memory', async () => ({ store: createInMemoryRunStore() }));
