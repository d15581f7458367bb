import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';
import { describePackServiceConformance, type IndexPins } from '../src/index.js';

// The Python SDK (sdks/python, installed into the CI virtualenv by .ci/run) and the fixture pack written
// against it; the service runs as `python -m kindgi.pack serve`, the index is its own indexer's.
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const pythonPackDir = fileURLToPath(new URL('../fixtures/python-pack/', import.meta.url));
const venv = process.env.KINDGI_TEST_VENV ?? join(repoRoot, '.ci/venv');
const python = join(venv, 'bin', 'python');

function buildPythonFixtureIndex(outPath: string, pins: IndexPins): void {
  const args = ['-m', 'kindgi.pack', 'index', '--pack-dir', pythonPackDir, '--output', outPath];
  args.push('--artifact-version', pins.artifactVersion, '--published-at', pins.publishedAt);
  try {
    execFileSync(python, args, { stdio: 'pipe', encoding: 'utf8' });
  } catch (cause) {
    const failure = cause as { stdout?: string; stderr?: string; message: string };
    throw new Error(`python -m kindgi.pack index failed:\n${failure.stdout ?? ''}${failure.stderr ?? failure.message}`);
  }
}

if (existsSync(python)) {
  describePackServiceConformance({
    name: 'python',
    packDir: pythonPackDir,
    buildIndex: buildPythonFixtureIndex,
    command: [python, '-m', 'kindgi.pack', 'serve'],
  });
} else {
  describe('pack service conformance: python', () => {
    it.skip(`needs ${python} with the kindgi SDK (create the venv as .ci/run does, or set KINDGI_TEST_VENV)`, () => {});
  });
}
