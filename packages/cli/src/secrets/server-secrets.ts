import { err, ok, type Result } from '@kindgi/protocol';
import { type ApiTarget, apiRequest } from '../cli/api-client.js';
import type { CliFailure } from '../cli/output.js';

/** What the server shows of a secret: never its value (docs/secrets.md). */
export interface SecretMetadata {
  readonly name: string;
  readonly env: string;
  readonly version: number;
}

// A listing is paged (at most 100 a page); a tenant with more than this many secrets is not a CLI listing.
const MAX_PAGES = 100;

/** `PUT /v1/secrets/{name}` with `{value, env}`: a new version of the secret for the token's tenant. */
export async function putServerSecret(
  target: ApiTarget,
  secret: { name: string; env: string; value: string },
): Promise<Result<SecretMetadata, CliFailure>> {
  const reply = await apiRequest(target, {
    method: 'PUT',
    path: `/v1/secrets/${encodeURIComponent(secret.name)}`,
    body: { value: secret.value, env: secret.env },
  });
  return reply.kind === 'err' ? reply : ok(reply.value.body as SecretMetadata);
}

/** Every secret of the token's tenant in `env` (every env when undefined), following the pages. */
export async function listServerSecrets(
  target: ApiTarget,
  env: string | undefined,
): Promise<Result<SecretMetadata[], CliFailure>> {
  const secrets: SecretMetadata[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const query = new URLSearchParams({ limit: '100' });
    if (env !== undefined) query.set('env', env);
    if (cursor !== undefined) query.set('cursor', cursor);
    const reply = await apiRequest(target, { method: 'GET', path: `/v1/secrets?${query}` });
    if (reply.kind === 'err') return reply;
    const body = reply.value.body as { data?: SecretMetadata[]; hasMore?: boolean; nextCursor?: string };
    secrets.push(...(body.data ?? []));
    if (body.hasMore !== true || body.nextCursor === undefined) return ok(secrets);
    cursor = body.nextCursor;
  }
  return err({ code: 'too-many-secrets', message: `more than ${MAX_PAGES} pages of secrets` });
}
