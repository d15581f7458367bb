import { open } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { Scalar } from '@scalar/hono-api-reference';
import type { Context } from 'hono';
import type { AppEnv } from '../env.js';
import { locateScalarBundle, type ScalarBundle } from './scalar-bundle.js';

/** Where, under the docs page's path, the Scalar browser script is served. */
export function docsScriptPath(docsPath: string): string {
  return `${docsPath.replace(/\/+$/, '')}/scalar.js`;
}

/** What `mountDocs` needs: the page's path and title, and the URL of the OpenAPI document it renders. */
export interface DocsOptions {
  path: string;
  title: string;
  documentUrl: string;
  /** Default: located from this package's dependencies (throws `ScalarBundleMissingError`). */
  bundle?: ScalarBundle;
}

/**
 * Mounts the Scalar reference page and the script it runs, both public and both served by this process, so
 * the page works air-gapped and under a `script-src 'self'` policy. Plain routes: neither is in the document.
 */
export function mountDocs(app: OpenAPIHono<AppEnv>, options: DocsOptions): void {
  const bundle = options.bundle ?? locateScalarBundle();
  const scriptPath = docsScriptPath(options.path);
  // Relative to the page, so the page still works when a host app mounts this one under a prefix. The
  // version in the URL lets the script be cached as immutable and still change on a Scalar upgrade.
  const scriptUrl = `${relativeUrl(options.path, scriptPath)}?v=${encodeURIComponent(bundle.version)}`;
  app.get(
    options.path,
    Scalar({
      url: relativeUrl(options.path, options.documentUrl),
      pageTitle: options.title,
      // A `cdn` URL makes the page load the single-file build with a plain <script src>, no further chunks.
      cdn: scriptUrl,
      // The default fonts come from fonts.scalar.com; the system font stack needs no network.
      withDefaultFonts: false,
      // Each of these is a service on scalar.com (agent chat, MCP generation, share/deploy toolbar, telemetry):
      // dead controls on an air-gapped deployment, and a copy of the document sent off-site on any other.
      agent: { disabled: true },
      mcp: { disabled: true },
      showDeveloperTools: 'never',
      telemetry: false,
    }),
  );
  app.get(scriptPath, (c) => serveBundle(c, bundle));
}

/**
 * `to` as a URL relative to the page at `from` (both absolute paths): `/docs` → `/v1/openapi.json` is
 * `v1/openapi.json`, `/v1/docs` → `/v1/openapi.json` is `openapi.json`.
 */
export function relativeUrl(from: string, to: string): string {
  const fromDir = from.split('/').slice(1, -1);
  const target = to.split('/').slice(1);
  let shared = 0;
  while (shared < fromDir.length && shared < target.length - 1 && fromDir[shared] === target[shared]) shared++;
  const up = fromDir.length - shared;
  const relative = [...Array<string>(up).fill('..'), ...target.slice(shared)].join('/');
  // A first segment with a colon would read as a URL scheme.
  return relative.split('/')[0]?.includes(':') ? `./${relative}` : relative;
}

const CACHE_CONTROL = 'public, max-age=31536000, immutable';

async function serveBundle(c: Context<AppEnv>, bundle: ScalarBundle): Promise<Response> {
  const validators = { ETag: bundle.etag, 'Cache-Control': CACHE_CONTROL };
  if (matchesAny(c.req.header('if-none-match'), bundle.etag)) return c.body(null, 304, validators);
  const handle = await open(bundle.file);
  let size: number;
  try {
    size = (await handle.stat()).size;
  } catch (thrown) {
    await handle.close();
    throw thrown;
  }
  const headers = {
    ...validators,
    'Content-Type': 'application/javascript; charset=utf-8',
    'Content-Length': String(size),
    'X-Content-Type-Options': 'nosniff',
  };
  // Hono answers HEAD with the GET handler's headers and drops the body unread, which would leave the
  // file open; so HEAD never opens a stream.
  if (c.req.method === 'HEAD') {
    await handle.close();
    return c.body(null, 200, headers);
  }
  // autoClose: the handle is closed when the stream ends or the client goes away (the stream is destroyed).
  const stream = Readable.toWeb(handle.createReadStream()) as unknown as ReadableStream<Uint8Array>;
  return c.body(stream, 200, headers);
}

/** `If-None-Match` per RFC 9110 §13.1.2: `*`, or any listed tag equal under weak comparison. */
function matchesAny(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch.trim() === '*') return true;
  const ours = etag.replace(/^W\//, '');
  return (ifNoneMatch.match(/(?:W\/)?"[^"]*"/g) ?? []).some((tag) => tag.replace(/^W\//, '') === ours);
}
