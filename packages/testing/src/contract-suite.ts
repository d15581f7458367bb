// `@kindgi/testing/contract-suite`: the vitest suites every implementation of a binding runs. The only entry
// that loads vitest (an optional peer dependency).
export {
  type BlobStorageContractFactory,
  type BlobStorageContractSubject,
  describeBlobStorageContract,
} from './blob/contract.js';
export { contractRun, describeRunStoreContract, type RunStoreContractSubject } from './run-store-contract.js';
export { describeSecretStoreContract, type SecretStoreContractSubject } from './secrets/contract.js';
