/**
 * A tenant secret's name, as a tool declares it in `needsSpec.secrets` and a tenant sets it: an
 * environment variable's (`CITATOR_KEY`), 1 to 128 characters. One rule for the SDK, the indexer and
 * the server's secret store, so a name one accepts is never refused by another.
 */
export const SECRET_NAME_PATTERN = /^[A-Z_][A-Z0-9_]{0,127}$/;

/** True when `name` is a secret name (`SECRET_NAME_PATTERN`). */
export function isSecretName(name: unknown): name is string {
  return typeof name === 'string' && SECRET_NAME_PATTERN.test(name);
}
