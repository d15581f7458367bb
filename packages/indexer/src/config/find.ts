import { readFile, stat } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { KINDGI_CONFIG_FILENAMES, KINDGI_JSON_CONFIG_FILENAME, PYPROJECT_FILENAME } from '../constants.js';
import type { KindgiConfigLocation } from './types.js';

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** The `[tool.kindgi]` table of a `pyproject.toml`, `undefined` when it has none or the file is absent. */
export async function readPyprojectTable(
  path: string,
): Promise<{ table: Record<string, unknown>; project: Record<string, unknown> } | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
  const doc = parseToml(text) as Record<string, unknown>;
  const tool = doc.tool as Record<string, unknown> | undefined;
  const table = tool?.kindgi;
  if (typeof table !== 'object' || table === null || Array.isArray(table)) return undefined;
  const project = typeof doc.project === 'object' && doc.project !== null ? doc.project : {};
  return { table: table as Record<string, unknown>, project: project as Record<string, unknown> };
}

async function hasPyprojectTable(path: string): Promise<boolean> {
  try {
    return (await readPyprojectTable(path)) !== undefined;
  } catch {
    // A pyproject.toml that does not parse is still a config someone meant: loading it reports why.
    return true;
  }
}

/** Every config present at the pack root, in lookup order. */
export async function findAllKindgiConfigs(packDir: string): Promise<KindgiConfigLocation[]> {
  const found: KindgiConfigLocation[] = [];
  for (const name of KINDGI_CONFIG_FILENAMES) {
    const path = join(packDir, name);
    if (await isFile(path)) found.push({ path, format: 'module' });
  }
  const json = join(packDir, KINDGI_JSON_CONFIG_FILENAME);
  if (await isFile(json)) found.push({ path: json, format: 'json' });
  const pyproject = join(packDir, PYPROJECT_FILENAME);
  if ((await isFile(pyproject)) && (await hasPyprojectTable(pyproject)))
    found.push({ path: pyproject, format: 'pyproject' });
  return found;
}

/**
 * Where the pack's config is: the first of `KINDGI_CONFIG_FILENAMES`, else `kindgi.config.json`, else a
 * `pyproject.toml` with a `[tool.kindgi]` table (one without it is not a pack). `undefined` when none.
 */
export async function findKindgiConfig(packDir: string): Promise<KindgiConfigLocation | undefined> {
  return (await findAllKindgiConfigs(packDir))[0];
}

/** The format of an explicitly named config file, by its name. */
export function configFormatOf(path: string): KindgiConfigLocation['format'] {
  if (extname(path) === '.json') return 'json';
  if (basename(path) === PYPROJECT_FILENAME || extname(path) === '.toml') return 'pyproject';
  return 'module';
}
