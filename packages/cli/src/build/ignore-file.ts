import { isAbsolute, relative, sep } from 'node:path';

/**
 * `Containerfile.dockerignore`: what the build context (the pack folder) leaves out. BuildKit reads
 * `<Containerfile>.dockerignore` beside the Containerfile it is given; Podman/Buildah take it with
 * `--ignorefile`. `.env*` never reaches a layer; node_modules and the output are rebuilt in the image.
 */
export function renderIgnoreFile(packDir: string, outDir: string, language: 'node' | 'java'): string {
  const lines = [
    '# Rendered by `kindgi build`: what the image build context (the pack folder) leaves out.',
    '.git',
    '.kindgi',
    '**/node_modules',
    '**/.env',
    '**/.env.*',
    // Maven's own output: the image compiles afresh.
    ...(language === 'java' ? ['target'] : []),
  ];
  const inside = relative(packDir, outDir);
  // An output inside the pack but outside .kindgi/ is named too (its path is then an input of this file).
  if (inside !== '' && !inside.startsWith('..') && !isAbsolute(inside)) {
    const path = inside.split(sep).join('/');
    if (path !== '.kindgi' && !path.startsWith('.kindgi/')) lines.push(path);
  }
  return `${lines.join('\n')}\n`;
}
