export { type CreateMcpAppInput, createMcpApp } from './app.js';
export { PROTECTED_RESOURCE_WELL_KNOWN } from './auth.js';
export type { McpCallFailure } from './call-result.js';
export { mcpMethodOf } from './method-label.js';
export { DEADLINE_META_KEY, type ReadToolReply } from './tool-call.js';
