import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  copyImagePack,
  IMAGE_PACK_CONFIG,
  makeTempDir,
  removeTempDirs,
  runKindgiBuild,
  SOURCE_DATE_EPOCH,
  snapshot,
  stagesOf,
} from './build-harness.js';

afterAll(removeTempDirs);

const SECRET_VALUE = 'npm-secret-value-7f3a9c';

function stage(containerfile: string, name: string): string[] {
  const found = stagesOf(containerfile).stages.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no stage ${name}`);
  return found.steps.map(([keyword, args]) => `${keyword} ${args}`);
}

describe("kindgi build renders the config's image section", () => {
  it('system packages, buildEnv in the build stage only, extensions in order, the secret as a mount only', async () => {
    const root = makeTempDir('build-image');
    const pack = copyImagePack(root);
    const out = join(root, 'out');
    const ran = await runKindgiBuild(['--out', out], pack, { SOURCE_DATE_EPOCH, NPM_TOKEN: SECRET_VALUE });
    expect(ran, ran.stderr).toMatchObject({ code: 0 });
    const containerfile = readFileSync(join(out, 'Containerfile'), 'utf8');
    const build = stage(containerfile, 'build');
    const runtime = stage(containerfile, 'runtime');
    const indexer = stage(containerfile, 'indexer');

    // One apt-get line of every system package, sorted; its failure names where they came from.
    const apt =
      'RUN { apt-get update && apt-get install -y --no-install-recommends ca-certificates fontconfig openssl && rm -rf /var/lib/apt/lists/*; }';
    expect(build.filter((line) => line.includes('apt-get'))).toEqual([
      `${apt} || { echo 'kindgi build: installing system packages (image.systemPackages, extension "fonts") failed' >&2; exit 1; }`,
    ]);
    expect(runtime.filter((line) => line.includes('apt-get'))).toHaveLength(1);

    // buildEnv: ENV lines of the build stage, never of the indexer or runtime stage.
    expect(build.filter((line) => line.startsWith('ENV '))).toEqual([
      'ENV FONTS_DIR="assets/fonts"',
      'ENV NODE_OPTIONS="--max-old-space-size=2048"',
      'ENV PUPPETEER_SKIP_DOWNLOAD="1"',
    ]);
    for (const name of ['FONTS_DIR', 'NODE_OPTIONS', 'PUPPETEER_SKIP_DOWNLOAD']) {
      expect([...runtime, ...indexer].join('\n')).not.toContain(name);
    }
    expect(runtime.filter((line) => line.startsWith('ENV '))).toEqual(['ENV PORT=8080']);

    // The secret: a BuildKit secret mount on the install and each postInstall step; never ARG or ENV.
    expect(containerfile).not.toMatch(/^(ARG|ENV) .*NPM_TOKEN/m);
    expect(runtime.join('\n')).not.toContain('NPM_TOKEN');
    const mounted = build.filter((line) => line.includes('--mount=type=secret,id=NPM_TOKEN,required=true'));
    expect(mounted.map((line) => line.split(' || ')[0]?.replace(/^.* && /, ''))).toEqual([
      'npm ci',
      "sh -c 'npx prisma generate --schema prisma/schema.prisma'",
      "sh -c 'fc-cache -f assets/fonts'",
    ]);
    expect(containerfile).toContain('docker build -f <this file> --secret id=NPM_TOKEN,env=NPM_TOKEN <pack folder>');
    // The value given to kindgi build reaches no file it writes.
    for (const [file, bytes] of snapshot(out)) expect(bytes.includes(SECRET_VALUE), file).toBe(false);

    // Extensions after the install, in config order: each one's context files, then its commands.
    const order = [
      'COPY ["package.json","package-lock.json","./"]',
      'COPY ["prisma/schema.prisma","prisma/schema.prisma"]',
      'COPY ["assets/fonts","assets/fonts/"]',
      'COPY . .',
    ].map((line) => build.indexOf(line));
    expect(order.every((position, i) => position >= 0 && (i === 0 || position > (order[i - 1] ?? 0)))).toBe(true);
    expect(build.find((line) => line.includes('prisma generate'))).toContain(
      `|| { echo 'kindgi build: extension "prisma" (postInstall[0]) failed' >&2; exit 1; }`,
    );
    // The ignore file keeps .env* and the pack's own output out of the build context.
    expect(readFileSync(join(out, 'Containerfile.dockerignore'), 'utf8')).toContain('**/.env\n**/.env.*\n');
  });

  it("a failing extension's RUN step fails the build naming the extension", async () => {
    const root = makeTempDir('build-fails');
    const config = IMAGE_PACK_CONFIG.replace("postInstall: ['fc-cache -f assets/fonts']", "postInstall: ['exit 3']");
    const pack = copyImagePack(root, config);
    const ran = await runKindgiBuild(['--dry-run'], pack);
    expect(ran, ran.stderr).toMatchObject({ code: 0 });
    const line = stage(ran.stdout, 'build').find((step) => step.includes("sh -c 'exit 3'"));
    if (line === undefined) throw new Error('no RUN line for the failing extension');
    // As BuildKit runs it: the mount flag consumed by the builder, the secret as a file under /run/secrets.
    const secrets = join(root, 'secrets');
    mkdirSync(secrets);
    writeFileSync(join(secrets, 'NPM_TOKEN'), SECRET_VALUE);
    const shell = line
      .replace(/^RUN /, '')
      .replace(/--mount=\S+ /g, '')
      .replaceAll('/run/secrets/', `${secrets}/`);
    const run = spawnSync('/bin/sh', ['-c', shell], { encoding: 'utf8', env: { PATH: process.env.PATH } });
    expect(run.status).toBe(1);
    expect(run.stderr).toBe('kindgi build: extension "fonts" (postInstall[0]) failed\n');
    expect(run.stdout).not.toContain(SECRET_VALUE);
  });

  it('an invalid extension fails the build at render time naming it, and writes nothing', async () => {
    const root = makeTempDir('build-invalid');
    // Through defineConfig (checked when the config loads) and as a plain object (checked by kindgi build).
    const viaDefine = IMAGE_PACK_CONFIG.replace(
      'extensions: [',
      "extensions: [{ name: 'chromium', systemPackages: ['chromium; curl evil'] }, ",
    );
    const plain = `export default { pack: { id: 'acme', version: '1.0.0' }, image: { extensions: [{ name: 'headless', postInstall: 'npm test' }] } };\n`;
    const missing = IMAGE_PACK_CONFIG.replace("contextFiles: ['assets/fonts']", "contextFiles: ['assets/missing']");
    const cases: [string, string, RegExp][] = [
      ['define', viaDefine, /image\.extensions\[0\]\.systemPackages\[0\] \(extension "chromium"\)/],
      ['plain', plain, /image\.extensions\[0\]\.postInstall \(extension "headless"\): "postInstall" must be a list/],
      ['missing', missing, /extension "fonts": contextFiles names assets\/missing, which is not in /],
    ];
    for (const [name, config, message] of cases) {
      const pack = copyImagePack(join(root, name), config);
      const ran = await runKindgiBuild(['--json'], pack);
      expect(ran.code, `${name}: ${ran.stderr}`).toBe(1);
      expect(ran.stderr).toMatch(message);
      expect(JSON.parse(ran.stdout)).toMatchObject({ error: { message: expect.stringMatching(message) } });
      expect(execFileSync('find', [pack, '-name', '.kindgi'], { encoding: 'utf8' })).toBe('');
    }
  });
});
