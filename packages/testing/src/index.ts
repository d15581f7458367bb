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
export { s3CliEnvironment } from './s3-cli-environment.js';
export { createStaticS3Credentials } from './s3-credentials.js';
export { createInMemorySecretRows, createInMemorySecretStore } from './secrets/memory.js';
export { parseSseFrames, readSse, type SseFrame } from './sse.js';
export { type AppBindings, createStubAppBindings, UnprovidedBindingError } from './stub-bindings.js';
export { openStorageInTempDir, type TempDirStorage } from './temp-dir-storage.js';
export { createStaticTokenResolver } from './token-resolver.js';
export { createInMemoryToolRegistry, type RegistryPacks } from './tool-registry.js';
// Blob storage: the in-memory binding.

// The contract suites import vitest: they are `@kindgi/testing/contract-suite`, so this entry imports under plain Node.
export { AWKWARD_KEYS } from './blob/awkward-keys.js';
export { createInMemoryBlobStorage } from './blob/memory.js';
