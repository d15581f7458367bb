import { randomBytes } from 'node:crypto';
import { cp, mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** Where test packs are made: inside the package, so their imports of `zod` resolve. */
export const PACKS_DIR = join(here, '..', '.packs');

/** The fixture pack used by most tests. */
export const BASIC_PACK = join(here, '..', 'fixtures', 'basic-pack');

const created: string[] = [];

/** Pinned values that make an index byte-deterministic. */
export const PINNED = { artifactVersion: '20260920.1', publishedAt: '2026-09-20T14:32:07.104Z' } as const;

/** A fresh, empty folder for one test pack. */
export async function freshDir(): Promise<string> {
  const dir = join(PACKS_DIR, randomBytes(6).toString('hex'));
  await mkdir(dir, { recursive: true });
  created.push(dir);
  return dir;
}

/** Writes a pack from a map of relative path → file text. */
export async function makePack(files: Record<string, string>): Promise<string> {
  const dir = await freshDir();
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

/** A copy of the basic fixture pack, plus files that must never be indexed (a test file, a dependency). */
export async function copyBasicPack(): Promise<string> {
  const dir = await freshDir();
  await cp(BASIC_PACK, dir, { recursive: true });
  await writeFile(join(dir, 'tools/echo/index.test.ts'), "export default { id: 'basic.nope', handler: () => 1 };\n");
  await mkdir(join(dir, 'tools/echo/node_modules/junk'), { recursive: true });
  await writeFile(
    join(dir, 'tools/echo/node_modules/junk/index.ts'),
    "export default { id: 'basic.junk', handler: () => 1 };\n",
  );
  await mkdir(join(dir, 'tools/.hidden'), { recursive: true });
  await writeFile(join(dir, 'tools/.hidden/index.ts'), "export default { id: 'basic.hidden', handler: () => 1 };\n");
  await writeFile(join(dir, 'tools/sum/index.d.ts'), 'export {};\n');
  return dir;
}

/** A config module for a minimal test pack. */
export function configText(extra = ''): string {
  return `export default { pack: { id: 'acme', version: '1.0.0' }${extra ? `, ${extra}` : ''} };\n`;
}

/** A valid tool module. */
export function toolText(id: string): string {
  return `export default { id: '${id}', input: { type: 'object' }, handler: async () => ({}) };\n`;
}

/** Removes the packs this test file made (test files run in parallel, each with its own list). */
export async function removePacks(): Promise<void> {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}
