// What a handler and a check receive: defined once in @kindgi/protocol, where the runner builds it from.
export type { CheckBindings, LogFields, ToolContext, ToolLogger } from '@kindgi/protocol';
