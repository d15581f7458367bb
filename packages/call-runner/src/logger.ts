import type { ToolLogger } from '@kindgi/protocol';

export type { LogFields } from '@kindgi/protocol';

/**
 * The logger a tool receives as `ctx.log` (`ToolLogger`). The pack service passes one that writes JSON
 * lines with the call's ids (subsystem `pack.tool`); in process, the default discards everything.
 */
export type HandlerLogger = ToolLogger;

const discard = (): void => {};

/** A logger that drops every line: the default when the caller gives none. */
export const noopLogger: HandlerLogger = Object.freeze({
  debug: discard,
  info: discard,
  warn: discard,
  error: discard,
});
