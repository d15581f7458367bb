import { readFileSync } from 'node:fs';

let cached: string | undefined;

function readVersion(): string {
  // `src/cli/version.ts` in the workspace, bundled into `dist/*.js` once built: the package.json is one or two up.
  for (const relative of ['../package.json', '../../package.json']) {
    try {
      const manifest = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (manifest.name === '@kindgi/cli' && typeof manifest.version === 'string') return manifest.version;
    } catch {
      // Not this level.
    }
  }
  return '0.0.0';
}

/** This CLI's version, from its package.json. */
export function cliVersion(): string {
  cached ??= readVersion();
  return cached;
}
