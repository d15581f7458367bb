import { type PackEnvDeclaration, validatePackEnvDeclaration } from '@kindgi/protocol';
import type { FieldChecker } from './fields.js';

/**
 * Checks a config's `env` with the pack protocol's rules (`validatePackEnvDeclaration`, the same check
 * the indexer and the pack service make), so a bad declaration fails where it is written.
 */
export function checkEnvDeclaration(check: FieldChecker, env: unknown): PackEnvDeclaration | undefined {
  if (env === undefined) return undefined;
  const checked = validatePackEnvDeclaration(env);
  if (checked.kind === 'err') check.fail('env', checked.error);
  return env as PackEnvDeclaration;
}
