import { ApiError } from '../errors/api-error.js';

interface RouteEntry {
  method: string;
  path: string;
}

interface CompiledRoute {
  method: string;
  pattern: RegExp;
}

function compile(path: string): RegExp {
  // Hono's templates as the app registers them: `:name` is one segment, a trailing `*` anything below.
  const source = path
    .split('/')
    .map((segment) => {
      if (segment.startsWith(':')) return '[^/]+';
      if (segment === '*') return '.*';
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return new RegExp(`^${source}$`);
}

/**
 * Tells a path no route serves (404) from a path served under other methods (405 with `Allow`). Reads the
 * app's routes on first use, when every route is registered; middleware (`ALL`) serves no method.
 */
export function methodNotAllowedFinder(
  routes: () => readonly RouteEntry[],
): (method: string, path: string) => ApiError | undefined {
  let compiled: CompiledRoute[] | undefined;
  return (method, path) => {
    compiled ??= routes()
      .filter((route) => route.method !== 'ALL')
      .map((route) => ({ method: route.method.toUpperCase(), pattern: compile(route.path) }));
    const allowed = new Set(compiled.filter((route) => route.pattern.test(path)).map((route) => route.method));
    if (allowed.size === 0 || allowed.has(method)) return undefined;
    // Hono answers HEAD through every GET route.
    if (allowed.has('GET')) allowed.add('HEAD');
    const allow = [...allowed].sort().join(', ');
    return new ApiError(
      'method-not-allowed',
      `${path} answers ${allow}, not ${method}.`,
      { allowed: [...allowed].sort() },
      { allow },
    );
  };
}
