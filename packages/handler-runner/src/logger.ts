/** Fields attached to one log line. */
export type LogFields = Record<string, unknown>;

/**
 * The logger a tool receives as `ctx.log`. The pack service passes one that writes JSON lines with the
 * call's ids (subsystem `pack.tool`); in process, the default discards everything.
 */
export interface HandlerLogger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

const discard = (): void => {};

/** A logger that drops every line: the default when the caller gives none. */
export const noopLogger: HandlerLogger = Object.freeze({
  debug: discard,
  info: discard,
  warn: discard,
  error: discard,
});
