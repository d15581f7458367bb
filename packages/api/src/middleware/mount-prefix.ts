import type { Context } from 'hono';
import { basePath } from 'hono/route';

/**
 * The path a host app mounted this app under (`host.route('/kindgi', app)` gives `/kindgi`), or `''` when it
 * serves at the root. Hono rewrites the routes of a mounted app but not the request's path, so every check
 * of a path against one of ours strips this first.
 */
export function mountPrefix(c: Context): string {
  const base = basePath(c);
  return base === '/' ? '' : base.replace(/\/+$/, '');
}

/** The request's path as this app's routes spell it (without the mount prefix). */
export function pathInApp(c: Context): string {
  const prefix = mountPrefix(c);
  const path = c.req.path;
  return prefix !== '' && path.startsWith(prefix) ? path.slice(prefix.length) || '/' : path;
}
