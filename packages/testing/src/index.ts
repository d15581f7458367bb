export {
  createScriptedRunCheck,
  createScriptedRunHandler,
  type ScriptedCall,
  type ScriptedCheck,
  ScriptedReply,
  type ScriptedTool,
  scriptedReply,
} from './pack-calls.js';
export { createInMemoryRunStore } from './run-store.js';
export { createStaticS3Credentials } from './s3-credentials.js';
export { parseSseFrames, readSse, type SseFrame } from './sse.js';
export { type AppBindings, createStubAppBindings, UnprovidedBindingError } from './stub-bindings.js';
export { createStaticTokenResolver } from './token-resolver.js';
export { createInMemoryToolRegistry, type RegistryPacks } from './tool-registry.js';
// Blob storage: the in-memory binding and the contract suite every implementation runs.

export {
  type BlobStorageContractFactory,
  type BlobStorageContractSubject,
  describeBlobStorageContract,
} from './blob/contract.js';
export { AWKWARD_KEYS } from './blob/contract-keys.js';
export { createInMemoryBlobStorage } from './blob/memory.js';
