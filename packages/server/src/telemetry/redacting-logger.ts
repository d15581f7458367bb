import type { SecretRedactor } from '@kindgi/bindings';
import type { ServerLogger } from './logger.js';

/**
 * `logger` with every tenant secret value sent to a pack taken out of each record (message and fields),
 * so what pack code logs, prints or throws never writes a secret into the server's log.
 */
export function redactingLogger(logger: ServerLogger, redactor: SecretRedactor): ServerLogger {
  return {
    log(level, event, message, fields) {
      if (redactor.size === 0) return logger.log(level, event, message, fields);
      logger.log(level, event, redactor.redact(message), fields === undefined ? fields : redactor.redactDeep(fields));
    },
  };
}
