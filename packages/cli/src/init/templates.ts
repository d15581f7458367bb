import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The languages `kindgi init` creates packs for: each has a folder under `templates/`. */
export const INIT_LANGUAGES = ['ts', 'java', 'python'] as const;
export type InitLanguage = (typeof INIT_LANGUAGES)[number];

/** One file of a template: where it is, and where it goes in the pack (before substitution). */
export interface TemplateFile {
  readonly source: string;
  readonly target: string;
  readonly executable: boolean;
}

// Files a published package can't carry under their real names (npm drops or renames them).
const RENAMED: Readonly<Record<string, string>> = { gitignore: '.gitignore', gitattributes: '.gitattributes' };
const EXECUTABLE = new Set(['kindgiw']);

let cachedRoot: string | undefined;

/** `packages/cli/templates`: next to `dist/` once built, two up from `src/init/` in the workspace. */
export function templatesRoot(): string {
  if (cachedRoot !== undefined) return cachedRoot;
  for (const relativePath of ['../templates', '../../templates']) {
    const candidate = fileURLToPath(new URL(relativePath, import.meta.url));
    if (existsSync(join(candidate, 'common', 'kindgiw'))) {
      cachedRoot = candidate;
      return candidate;
    }
  }
  throw new Error('the CLI package has no templates/ folder (a broken install)');
}

async function walk(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await walk(path)));
    else if (entry.isFile()) files.push(path);
  }
  return files;
}

/** Every file a pack of `language` is made of: the language's own, then the shared ones (wrapper, .gitignore). */
export async function templateFiles(language: InitLanguage): Promise<TemplateFile[]> {
  const root = templatesRoot();
  const files: TemplateFile[] = [];
  for (const folder of [language, 'common']) {
    const base = join(root, folder);
    for (const source of (await walk(base)).sort()) {
      const parts = relative(base, source).split(sep);
      const name = parts.at(-1) ?? '';
      parts[parts.length - 1] = RENAMED[name] ?? name;
      files.push({ source, target: parts.join('/'), executable: EXECUTABLE.has(name) });
    }
  }
  return files;
}

/** Replaces every `__NAME__` placeholder with its value; a placeholder without one is left as it is. */
export function substitute(text: string, values: Readonly<Record<string, string>>): string {
  return text.replace(/__([A-Z_]+?)__/g, (whole, name: string) => values[name] ?? whole);
}
