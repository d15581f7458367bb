// Writes dist/bundle-map.json: each pack source file → its bundle, relative to dist/ (the module root).
// `kindgi-index --bundle-map` and the pack service's `--bundle-map` both read it.
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const FOLDERS = ['tools', 'guardrails', 'agents', 'flows'];
const map = {};
for (const folder of FOLDERS) {
  const entries = await readdir(folder, { withFileTypes: true });
  for (const entry of entries.filter((e) => e.isDirectory()).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    map[`${folder}/${entry.name}/index.ts`] = `${folder}/${entry.name}/index.mjs`;
  }
}
await writeFile(join('dist', 'bundle-map.json'), `${JSON.stringify(map, null, 2)}\n`);
