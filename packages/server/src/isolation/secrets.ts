/**
 * Where the server's secrets sit, by name only (values are never read here): which fields of the config
 * file hold one, and which environment variables do.
 */

function nonEmptyList(value: unknown): boolean {
  return Array.isArray(value) && value.length > 0;
}

function field(block: unknown, name: string): unknown {
  return typeof block === 'object' && block !== null ? (block as Record<string, unknown>)[name] : undefined;
}

/**
 * The secret-bearing fields a config file sets: tenant tokens and S3 keys, the cursor secret, the database
 * URL, the object store's secret key, the metrics token.
 * @example
 * configFileSecrets({ tokens: [{ token: '…', tenantId: 't' }], port: 80 }); // ['tokens']
 */
export function configFileSecrets(file: Record<string, unknown>): string[] {
  const found: string[] = [];
  if (nonEmptyList(file.tokens)) found.push('tokens');
  if (nonEmptyList(file.s3Credentials)) found.push('s3Credentials');
  if (file.cursorSecret !== undefined) found.push('cursorSecret');
  if (field(file.database, 'url') !== undefined) found.push('database.url');
  if (field(file.blobs, 'secretAccessKey') !== undefined) found.push('blobs.secretAccessKey');
  if (field(file.metrics, 'token') !== undefined) found.push('metrics.token');
  if (field(file.secrets, 'key') !== undefined) found.push('secrets.key');
  if (nonEmptyList(field(file.secrets, 'previousKeys'))) found.push('secrets.previousKeys');
  const models = typeof file.models === 'object' && file.models !== null ? Object.entries(file.models) : [];
  for (const [name, entry] of models) if (field(entry, 'apiKey') !== undefined) found.push(`models.${name}.apiKey`);
  return found;
}

const SERVER_SECRET_VARIABLES = new Set([
  'KINDGI_SERVER_TOKENS',
  'KINDGI_SERVER_S3_CREDENTIALS',
  'KINDGI_SERVER_CURSOR_SECRET',
  'KINDGI_SERVER_DATABASE_URL',
  'KINDGI_SERVER_BLOBS_SECRET_ACCESS_KEY',
  'KINDGI_SERVER_METRICS_TOKEN',
  'KINDGI_SERVER_SECRETS_KEY',
  'OTEL_EXPORTER_OTLP_HEADERS',
  'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
]);
// Names deployments give secrets (AWS_SECRET_ACCESS_KEY, PGPASSWORD, GITHUB_TOKEN, …).
const SECRET_NAME = /SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIAL|PRIVATE|API_?KEY/i;

/** The variables of `env` that hold, or by their name probably hold, a secret. */
export function environmentSecrets(env: Readonly<Record<string, string | undefined>>): string[] {
  return Object.keys(env)
    .filter((name) => env[name] !== undefined && env[name] !== '')
    .filter((name) => SERVER_SECRET_VARIABLES.has(name) || SECRET_NAME.test(name))
    .sort();
}
