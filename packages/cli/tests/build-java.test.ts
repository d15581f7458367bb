import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  filesUnder,
  makeTempDir,
  removeTempDirs,
  runKindgiBuild,
  SOURCE_DATE_EPOCH,
  stagesOf,
} from './build-harness.js';

afterAll(removeTempDirs);

function javaPack(root: string): string {
  const pack = join(root, 'java-pack');
  mkdirSync(join(pack, 'src', 'main', 'java', 'acme', 'tools'), { recursive: true });
  writeFileSync(join(pack, 'pom.xml'), '<project><modelVersion>4.0.0</modelVersion></project>\n');
  const config = {
    language: 'java',
    pack: { id: 'acme', version: '1.0.0' },
    image: { systemPackages: ['fontconfig'], buildEnv: { MAVEN_OPTS: '-Xmx1g' }, secretEnv: ['MAVEN_REPO_TOKEN'] },
  };
  writeFileSync(join(pack, 'kindgi.config.json'), `${JSON.stringify(config, null, 2)}\n`);
  return pack;
}

describe('kindgi build on a Java pack', () => {
  it('renders a Maven build stage that runs Main index and a JRE runtime stage, twice the same', async () => {
    const root = makeTempDir('build-java');
    const pack = javaPack(root);
    const first = await runKindgiBuild(['--out', join(root, 'out-1')], pack, { SOURCE_DATE_EPOCH });
    expect(first, first.stderr).toMatchObject({ code: 0 });
    const second = await runKindgiBuild(['--out', join(root, 'out-2')], pack, { SOURCE_DATE_EPOCH });
    expect(second.code).toBe(0);
    expect(filesUnder(join(root, 'out-1'))).toEqual(['Containerfile', 'Containerfile.dockerignore']);
    const text = readFileSync(join(root, 'out-1', 'Containerfile'), 'utf8');
    expect(readFileSync(join(root, 'out-2', 'Containerfile'), 'utf8')).toBe(text);
    const { args, stages } = stagesOf(text);
    expect(args).toContain('ARG PUBLISHED_AT=2025-09-20T14:32:07.000Z');
    expect(args.some((line) => /^ARG JRE_IMAGE=eclipse-temurin:17-jre@sha256:/.test(line))).toBe(true);
    // FROM ${MAVEN_IMAGE} / ${JRE_IMAGE}: the pinned ARGs above.
    expect(stages.map((stage) => [stage.name, stage.from.replace(/^\$\{(\w+)\}$/, '$1')])).toEqual([
      ['build', 'MAVEN_IMAGE'],
      ['runtime', 'JRE_IMAGE'],
    ]);
    const [build, runtime] = stages.map((stage) => stage.steps.map(([keyword, rest]) => `${keyword} ${rest}`));
    expect(build).toContain('ENV MAVEN_OPTS="-Xmx1g"');
    expect(build?.some((line) => line.includes('com.kindgi.pack.Main index --pack-dir .'))).toBe(true);
    expect(build?.find((line) => line.includes('dependency:go-offline'))).toContain(
      '--mount=type=secret,id=MAVEN_REPO_TOKEN,required=true',
    );
    expect(runtime?.join('\n')).not.toMatch(/MAVEN_OPTS|MAVEN_REPO_TOKEN/);
    expect(runtime?.at(-1)).toBe(
      'CMD ["java","-cp","/app/classes:/app/lib/*","com.kindgi.pack.Main","serve","--index","/app/index.json"]',
    );
    expect(readFileSync(join(root, 'out-1', 'Containerfile.dockerignore'), 'utf8')).toContain('\ntarget\n');
  });
});
