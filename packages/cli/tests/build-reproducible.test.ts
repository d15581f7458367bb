import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  copyExamplePack,
  filesUnder,
  makeTempDir,
  removeTempDirs,
  runKindgiBuild,
  SOURCE_DATE_EPOCH,
  snapshot,
} from './build-harness.js';

afterAll(removeTempDirs);

describe('kindgi build on the example pack', () => {
  it('builds twice into two folders with identical bytes: bundles, index.json, Containerfile', async () => {
    const root = makeTempDir('build-twice');
    const pack = copyExamplePack(root);
    const first = await runKindgiBuild(['--out', join(root, 'out-1')], pack, { SOURCE_DATE_EPOCH });
    expect(first, first.stderr).toMatchObject({ code: 0 });
    const second = await runKindgiBuild(['--pack-dir', pack, '--out', join(root, 'out-2'), '--json'], root, {
      SOURCE_DATE_EPOCH,
    });
    expect(second, second.stderr).toMatchObject({ code: 0 });
    const one = snapshot(join(root, 'out-1'));
    const two = snapshot(join(root, 'out-2'));
    expect([...one.keys()]).toEqual([...two.keys()]);
    for (const [file, bytes] of one) expect(two.get(file)?.equals(bytes), file).toBe(true);
    expect([...one.keys()]).toEqual(
      expect.arrayContaining([
        'Containerfile',
        'Containerfile.dockerignore',
        'index.json',
        'pack/bundle-map.json',
        'pack/kindgi.config.mjs',
        'pack/tools/format-citation/index.mjs',
      ]),
    );
    const report = JSON.parse(second.stdout) as { pins: Record<string, string>; files: string[] };
    expect(report.files).toEqual(filesUnder(join(root, 'out-2')));
    const index = JSON.parse(readFileSync(join(root, 'out-1', 'index.json'), 'utf8')) as Record<string, unknown>;
    expect(index).toMatchObject({
      packId: 'acme',
      publishedAt: '2025-09-20T14:32:07.000Z',
      artifactVersion: report.pins.artifactVersion,
    });
    expect(report.pins.artifactVersion).toMatch(/^1\.4\.0\+[0-9a-f]{12}$/);
    // The Containerfile carries the pins, so the image's indexer stage writes this same index.
    const containerfile = readFileSync(join(root, 'out-1', 'Containerfile'), 'utf8');
    expect(containerfile).toContain(`ARG SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH}\n`);
    expect(containerfile).toContain(`ARG ARTIFACT_VERSION=${report.pins.artifactVersion}\n`);
    expect(containerfile).toContain('RUN npm ci ');
  });

  it('a changed tool changes the bundles and the artifact version; a rebuild replaces the old output', async () => {
    const root = makeTempDir('build-change');
    const pack = copyExamplePack(root);
    const out = join(root, 'out');
    const before = await runKindgiBuild(['--out', out, '--json'], pack);
    expect(before, before.stderr).toMatchObject({ code: 0 });
    writeFileSync(join(out, 'pack', 'stale.mjs'), 'export {};\n');
    const tool = join(pack, 'tools', 'format-citation', 'index.ts');
    writeFileSync(tool, readFileSync(tool, 'utf8').replace('Formats a source', 'Formats one source'));
    const after = await runKindgiBuild(['--out', out, '--json'], pack);
    expect(after, after.stderr).toMatchObject({ code: 0 });
    const version = (ran: { stdout: string }) => (JSON.parse(ran.stdout) as { pins: { artifactVersion: string } }).pins;
    expect(version(after).artifactVersion).not.toBe(version(before).artifactVersion);
    expect(existsSync(join(out, 'pack', 'stale.mjs'))).toBe(false);
    // Without SOURCE_DATE_EPOCH, publishedAt is the epoch (and a note says so): never the clock.
    expect(version(after)).toMatchObject({ sourceDateEpoch: '0', publishedAt: '1970-01-01T00:00:00.000Z' });
    expect(after.stderr).toContain('SOURCE_DATE_EPOCH is not set');
  });

  it('--dry-run prints the Containerfile and the layer list and writes nothing', async () => {
    const root = makeTempDir('build-dry');
    const pack = copyExamplePack(root);
    const before = filesUnder(root);
    const ran = await runKindgiBuild(['--dry-run'], pack, { SOURCE_DATE_EPOCH });
    expect(ran, ran.stderr).toMatchObject({ code: 0 });
    expect(filesUnder(root)).toEqual(before);
    expect(existsSync(join(pack, '.kindgi'))).toBe(false);
    expect(ran.stdout).toMatch(/^# Rendered by `kindgi build`/);
    expect(ran.stdout).toMatch(/\nFROM \$\{NODE_IMAGE\} AS runtime\n/);
    expect(ran.stdout).toMatch(/\nbuild \(FROM \$\{NODE_IMAGE\}\)\n {2}WORKDIR \/src\n/);
    expect(ran.stdout).toMatch(/\nruntime \(FROM \$\{NODE_IMAGE\}\)\n(?: {2}.*\n)*\s+COPY\s+--from=indexer/);
    // The dry run renders what the real build writes, byte for byte.
    const real = await runKindgiBuild(['--out', join(root, 'out')], pack, { SOURCE_DATE_EPOCH });
    expect(real.code).toBe(0);
    expect(ran.stdout.startsWith(readFileSync(join(root, 'out', 'Containerfile'), 'utf8'))).toBe(true);
    const json = await runKindgiBuild(['--dry-run', '--json'], pack, { SOURCE_DATE_EPOCH });
    const report = JSON.parse(json.stdout) as { dryRun: boolean; layers: { stages: { name: string }[] } };
    expect(report.dryRun).toBe(true);
    expect(report.layers.stages.map((stage) => stage.name)).toEqual(['build', 'indexer', 'runtime']);
  });

  it('refuses a pack with no lockfile, a language with no image and bad arguments, rendering nothing', async () => {
    const root = makeTempDir('build-refusals');
    const pack = copyExamplePack(root);
    writeFileSync(join(pack, 'package-lock.json'), '');
    const both = join(pack, 'pnpm-lock.yaml');
    writeFileSync(both, 'lockfileVersion: 9.0\n');
    const twoLocks = await runKindgiBuild(['--json'], pack);
    expect(twoLocks.code).toBe(1);
    expect(JSON.parse(twoLocks.stdout)).toMatchObject({ error: { code: 'lockfile-missing' } });

    // Python packs build (build-python.test.ts); a Scala pack has no image yet.
    const scala = join(root, 'scala');
    mkdirSync(scala);
    writeFileSync(
      join(scala, 'kindgi.config.json'),
      '{ "language": "scala", "pack": { "id": "acme", "version": "1.0.0" } }\n',
    );
    const ran = await runKindgiBuild(['--pack-dir', scala], root);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain(
      'kindgi build: scala packs have no image build: kindgi build renders images for Node, Java and Python packs',
    );
    expect(ran.stdout).toBe('');
    expect(filesUnder(scala)).toEqual(['kindgi.config.json']);

    const bad = await runKindgiBuild(['--nope'], pack);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('Usage: kindgi build');
  });
});
