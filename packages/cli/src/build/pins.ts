import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { compareCodeUnits, err, ok, type Result } from '@kindgi/protocol';

/** The pins that make index.json the same on every build of the same inputs. */
export interface BuildPins {
  /** Seconds since the epoch: `SOURCE_DATE_EPOCH`, else 0. */
  readonly sourceDateEpoch: string;
  /** `publishedAt` of the index: the pin as an ISO time. */
  readonly publishedAt: string;
  /** Whether `SOURCE_DATE_EPOCH` was set (else the pin is 0 and `kindgi build` says so). */
  readonly fromEnvironment: boolean;
}

// Year 9999 at most: an ISO time, and a bound on the input.
const MAX_EPOCH = 253_402_300_799;

/** The time pin from `SOURCE_DATE_EPOCH` (the reproducible-builds convention), else 0. */
export function timePins(env: NodeJS.ProcessEnv): Result<BuildPins, string> {
  const raw = env.SOURCE_DATE_EPOCH;
  if (raw === undefined || raw === '') {
    return ok({ sourceDateEpoch: '0', publishedAt: new Date(0).toISOString(), fromEnvironment: false });
  }
  if (!/^\d{1,12}$/.test(raw) || Number(raw) > MAX_EPOCH) {
    return err(`SOURCE_DATE_EPOCH must be whole seconds since 1970 (like 1758378727), got "${raw.slice(0, 40)}"`);
  }
  return ok({
    sourceDateEpoch: String(Number(raw)),
    publishedAt: new Date(Number(raw) * 1000).toISOString(),
    fromEnvironment: true,
  });
}

/**
 * The artifact version of a Node pack's build: `<pack version>+<12 hex>`, the hex a SHA-256 over the
 * bundle map and every bundle it names (with the bundled config). It changes exactly when the code the
 * image serves changes, which is what a server's refresh keys on, and needs no clock.
 */
export async function bundleArtifactVersion(
  packVersion: string,
  bundleDir: string,
  bundleMap: Readonly<Record<string, string>>,
): Promise<string> {
  const hash = createHash('sha256');
  const files = ['bundle-map.json', 'kindgi.config.mjs', ...Object.values(bundleMap)].sort(compareCodeUnits);
  for (const file of new Set(files)) {
    const bytes = await readFile(join(bundleDir, file));
    hash.update(`${file}\0${bytes.length}\0`).update(bytes);
  }
  const safeVersion = packVersion.replace(/[^0-9A-Za-z.+-]/g, '-');
  return `${safeVersion}+${hash.digest('hex').slice(0, 12)}`;
}
