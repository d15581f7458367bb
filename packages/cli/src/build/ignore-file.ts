import { isAbsolute, relative, sep } from 'node:path';

/** The languages `kindgi build` renders an image for. */
export type BuildLanguage = 'node' | 'java' | 'python';

// Python's own caches and environments, and the indexer's and wheel builds' default output (`dist/`):
// the image makes its own virtualenv and index.
const PYTHON_PATTERNS = [
  '.venv',
  'venv',
  'dist',
  '**/__pycache__',
  '**/*.pyc',
  '**/*.egg-info',
  '**/.pytest_cache',
  '**/.mypy_cache',
  '**/.ruff_cache',
];

/**
 * What the build context (the pack folder) leaves out, as `.dockerignore` patterns: `.env*` never reaches
 * a layer; node_modules, Maven's target/ and Python's virtualenvs and caches are rebuilt in the image. An
 * output folder inside the pack but outside `.kindgi/` is named too.
 */
export function contextIgnorePatterns(packDir: string, outDir: string, language: BuildLanguage): string[] {
  const patterns = [
    '.git',
    '.kindgi',
    '**/node_modules',
    '**/.env',
    '**/.env.*',
    ...(language === 'java' ? ['target'] : []),
    ...(language === 'python' ? PYTHON_PATTERNS : []),
  ];
  const inside = relative(packDir, outDir);
  if (inside !== '' && !inside.startsWith('..') && !isAbsolute(inside)) {
    const path = inside.split(sep).join('/');
    if (path !== '.kindgi' && !path.startsWith('.kindgi/')) patterns.push(path);
  }
  return patterns;
}

/**
 * `Containerfile.dockerignore`: BuildKit reads `<Containerfile>.dockerignore` beside the Containerfile it
 * is given; Podman/Buildah take it with `--ignorefile`.
 */
export function renderIgnoreFile(packDir: string, outDir: string, language: BuildLanguage): string {
  const lines = [
    '# Rendered by `kindgi build`: what the image build context (the pack folder) leaves out.',
    ...contextIgnorePatterns(packDir, outDir, language),
  ];
  return `${lines.join('\n')}\n`;
}

function patternRegExp(pattern: string): RegExp {
  const anyDepth = pattern.startsWith('**/');
  const body = (anyDepth ? pattern.slice(3) : pattern)
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^/]*');
  return new RegExp(anyDepth ? `(^|/)${body}$` : `^${body}$`);
}

/**
 * A matcher for the patterns above as the builder applies them: a path is left out when it, or a folder
 * it is in, matches (only the pattern forms `contextIgnorePatterns` writes: names, `*` and a `**\/` prefix).
 */
export function contextFilter(patterns: readonly string[]): (path: string) => boolean {
  const tests = patterns.map(patternRegExp);
  return (path) => {
    const parts = path.split('/');
    for (let end = 1; end <= parts.length; end++) {
      const prefix = parts.slice(0, end).join('/');
      if (tests.some((test) => test.test(prefix))) return false;
    }
    return true;
  };
}
