import { createHash } from 'node:crypto';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { type ForeignIndexEntry, ownIndexEntries } from '@kindgi/bindings';
import { RESERVED_CHECK_IDS } from '@kindgi/indexer';
import { type PackServiceClient, readPackIndexFile } from '@kindgi/pack-service';
import {
  canonicalJson,
  err,
  INDEX_ENVELOPE_VERSION,
  messageOf,
  ok,
  PACK_HEADERS,
  type PackIndex,
  type PackInfo,
  type Result,
} from '@kindgi/protocol';

/** The largest index a remote pack service may send (an index is schemas, not data). */
export const MAX_REMOTE_INDEX_BYTES = 16 * 1024 * 1024;

/** A remote index as served here: only the entries its pack owns, and those refused (to log). */
export interface FetchedIndex {
  index: PackIndex;
  /** False for a service without `GET /v1/index` (its tools have no schemas here). */
  complete: boolean;
  refused: ForeignIndexEntry[];
  /** `indexContentHash` of the index as fetched: equal for two versions that serve the same tools. */
  contentHash: string;
}

/**
 * A hash of what an index serves, whatever its version says: the canonical JSON (keys sorted) of the index
 * without `artifactVersion` and `publishedAt`, which change with every publication even when nothing else does.
 */
export function indexContentHash(index: PackIndex): string {
  const { artifactVersion: _version, publishedAt: _published, ...content } = index;
  return createHash('sha256').update(canonicalJson(content)).digest('hex');
}

/** Where a remote pack service is and how to authenticate to it. */
export interface RemoteTarget {
  url: string;
  token: string;
}

async function readBounded(response: Response, limit: number): Promise<Result<string, string>> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > limit) return err(`the index is ${declared} bytes, over the ${limit} byte limit`);
  const reader = response.body?.getReader();
  if (!reader) return ok('');
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return err(`the index is over the ${limit} byte limit`);
    }
    chunks.push(value);
  }
  return ok(Buffer.concat(chunks).toString('utf8'));
}

/**
 * A service without `GET /v1/index` (an older pack service) still has its tools served: their schemas accept
 * anything here and the service validates every call itself. Guardrails need their definitions, so none.
 */
function indexFromInfo(info: PackInfo): PackIndex {
  return {
    v: INDEX_ENVELOPE_VERSION,
    packId: info.packId,
    packVersion: info.packVersion,
    artifactVersion: info.artifactVersion,
    publishedAt: new Date(0).toISOString(),
    tools: info.tools.map((tool) => ({ ...tool, input: {}, output: {}, modulePath: '(remote)' })),
    guardrails: [],
    agents: [],
    flows: [],
  };
}

/**
 * Fetches `GET /v1/index` (the index the service serves, byte for byte) and checks it the way a pack service
 * does, through a file in `workDir` that also keeps the last good copy. `info` names the version expected.
 */
export async function fetchRemoteIndex(
  target: RemoteTarget,
  info: PackInfo,
  workDir: string,
  signal: AbortSignal,
): Promise<Result<FetchedIndex, string>> {
  let response: Response;
  try {
    response = await fetch(new URL('/v1/index', target.url), {
      headers: { [PACK_HEADERS.token]: target.token },
      signal,
    });
  } catch (cause) {
    return err(`GET /v1/index failed: ${messageOf(cause)}`);
  }
  if (response.status === 404) {
    await response.body?.cancel();
    const fromInfo = indexFromInfo(info);
    return ok({ ...owned(fromInfo), complete: false, contentHash: indexContentHash(fromInfo) });
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    return err(`GET /v1/index answered HTTP ${response.status}`);
  }
  const text = await readBounded(response, MAX_REMOTE_INDEX_BYTES).catch((cause: unknown) =>
    err(`GET /v1/index broke off: ${messageOf(cause)}`),
  );
  if (text.kind === 'err') return text;
  const path = join(workDir, 'index.json');
  try {
    await writeFile(`${path}.partial`, text.value);
    await rename(`${path}.partial`, path);
  } catch (cause) {
    return err(`cannot keep the index in ${workDir}: ${messageOf(cause)}`);
  }
  const read = await readPackIndexFile(path);
  if (read.kind === 'err') return err(read.error.join('; '));
  const index = read.value;
  if (index.packId !== info.packId) {
    return err(`/v1/index is pack ${index.packId} but /v1/info says ${info.packId}`);
  }
  return ok({ ...owned(index), complete: true, contentHash: indexContentHash(index) });
}

/**
 * A remote index is untrusted: what it names under another pack's id is refused here, the one place remote
 * indexes enter (local ones come from this server's own indexer). The runtime's built-in checks are no pack's.
 */
function owned(index: PackIndex): { index: PackIndex; refused: ForeignIndexEntry[] } {
  return ownIndexEntries(index, RESERVED_CHECK_IDS);
}

/** What the poller knows of a remote index: the one served, what it serves, and when it was last fetched. */
export interface KnownIndex {
  index: PackIndex;
  contentHash: string;
  /** The `artifactVersion` `/v1/info` named when the index was last fetched (the served one may be older). */
  seenVersion: string;
  /** `performance.now()` of the last fetch of `/v1/index`. */
  fetchedAt: number;
}

/**
 * What a refresh found: nothing new (`current`), a new version too soon after the last fetch (`deferred`, to
 * fetch at a later poll), a new version serving the same tools (`same`: nothing to rebuild), or a new index.
 */
export type Refresh =
  | { kind: 'current' }
  | { kind: 'deferred' }
  | { kind: 'same'; seenVersion: string; fetchedAt: number }
  | { kind: 'changed'; fetched: FetchedIndex; seenVersion: string; fetchedAt: number };

/**
 * `/v1/info`, then (at most once per `minRefreshMs`) the index when its `artifactVersion` differs from the
 * one last seen. A service never changes its pack id: the server routes by pack id, so one serving another id
 * later (maybe one another pack already serves) is refused, and the last index stays.
 */
export async function refreshRemoteIndex(
  target: RemoteTarget,
  client: PackServiceClient,
  known: KnownIndex,
  options: { workDir: string; minRefreshMs: number; signal: AbortSignal },
): Promise<Result<Refresh, string>> {
  const info = await client.info({ signal: options.signal });
  if (info.kind === 'err') return err(`GET /v1/info: ${info.error.message}`);
  const { packId } = known.index;
  if (packId !== info.value.packId) {
    return err(`/v1/info names pack ${info.value.packId}, but this service serves pack ${packId}; refused`);
  }
  const seenVersion = info.value.artifactVersion;
  if (seenVersion === known.seenVersion) return ok({ kind: 'current' });
  const now = performance.now();
  if (now - known.fetchedAt < options.minRefreshMs) return ok({ kind: 'deferred' });
  const fetched = await fetchRemoteIndex(target, info.value, options.workDir, options.signal);
  if (fetched.kind === 'err') return fetched;
  if (fetched.value.contentHash === known.contentHash) return ok({ kind: 'same', seenVersion, fetchedAt: now });
  return ok({ kind: 'changed', fetched: fetched.value, seenVersion, fetchedAt: now });
}

/** `/v1/info` and the index it names: what a server's start waits for. */
export async function firstRemoteIndex(
  target: RemoteTarget,
  client: PackServiceClient,
  workDir: string,
  signal: AbortSignal,
): Promise<Result<FetchedIndex, string>> {
  const info = await client.info({ signal });
  if (info.kind === 'err') return err(`GET /v1/info: ${info.error.message}`);
  return fetchRemoteIndex(target, info.value, workDir, signal);
}

/** True when the service answers `GET /readyz` with 200 before `signal` fires. */
export async function remoteIsReady(url: string, signal: AbortSignal): Promise<boolean> {
  try {
    const response = await fetch(new URL('/readyz', url), { signal });
    await response.body?.cancel();
    return response.status === 200;
  } catch {
    return false;
  }
}
