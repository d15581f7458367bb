import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Writes `text` to `path` so that readers see the old file or the new one, never a part: a temporary file
 * in the same folder (same filesystem, so the rename is atomic), then a rename over the target.
 */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `.${basename(path)}.tmp-${process.pid}-${Date.now()}`);
  try {
    await writeFile(tmp, text, { encoding: 'utf8', flag: 'wx' });
    await rename(tmp, path);
  } catch (cause) {
    await rm(tmp, { force: true });
    throw cause;
  }
}
