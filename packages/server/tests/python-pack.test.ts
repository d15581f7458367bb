import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, makeTempDir, readCredentials, startServer, stopAllServers, writeConfig } from './harness.js';
import { api } from './http.js';

// A Python pack (pyproject.toml with [tool.kindgi]) under kindgi-server with `watch`: indexed with
// `python -m kindgi.pack index`, served by `python -m kindgi.pack serve` under the supervisor, reindexed
// and swapped on save. The interpreter is the CI virtualenv's, where .ci/run installs the SDK.
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const python = join(process.env.KINDGI_TEST_VENV ?? join(repoRoot, '.ci/venv'), 'bin', 'python');

const greet = (greeting: string) => `from pydantic import BaseModel

from kindgi.pack import define_tool


class Greeting(BaseModel):
    name: str


class Greeted(BaseModel):
    text: str


def _greet(value: Greeting, ctx) -> Greeted:
    return Greeted(text=f"${greeting}, {value.name}")


greet = define_tool(id="acme.greet", description="Greets someone.", handler=_greet)
`;

const ENV_SEEN = `import os

from kindgi.pack import define_tool


def _seen(value, ctx):
    with open("/proc/self/environ", "rb") as block:
        names = sorted({entry.split(b"=", 1)[0].decode() for entry in block.read().split(b"\\0") if entry})
    return {"environ": sorted(os.environ), "block": names}


env_seen = define_tool(id="acme.env-seen", description="The variable names the handler sees.", handler=_seen)
`;

const MIN_CHARS = `from kindgi.pack import define_guardrail


def _check(config, trace, ctx):
    text = trace.output if isinstance(trace.output, str) else ""
    return {"passed": len(text) >= config["minChars"], "reason": f"needs {config['minChars']} characters"}


min_chars = define_guardrail(
    id="acme.min-chars",
    on_violation="halt",
    config_schema={"type": "object", "properties": {"minChars": {"type": "integer", "minimum": 0}}},
    config={"minChars": 3},
    check=_check,
)
`;

function writePythonPack(dir: string): string {
  mkdirSync(join(dir, 'tools'), { recursive: true });
  mkdirSync(join(dir, 'guardrails'), { recursive: true });
  writeFileSync(
    join(dir, 'pyproject.toml'),
    '[project]\nname = "acme"\nversion = "1.0.0"\n\n[tool.kindgi]\npack = { id = "acme" }\nenv = { optional = ["ACME_DECLARED"] }\n',
  );
  writeFileSync(join(dir, 'tools', 'env_seen.py'), ENV_SEEN);
  writeFileSync(join(dir, 'guardrails', 'min_chars.py'), MIN_CHARS);
  // The pack's env file sets one declared and one undeclared name: only the declared one may reach pack code.
  writeFileSync(join(dir, '.env'), 'ACME_DECLARED=declared\nACME_UNDECLARED=undeclared-value\n');
  const tool = join(dir, 'tools', 'greet.py');
  writeFileSync(tool, greet('Hello'));
  return tool;
}

describe.skipIf(!existsSync(python))('a Python pack under kindgi-server', () => {
  afterAll(async () => {
    await stopAllServers();
    cleanupTempDirs();
  });

  it('serves REST invoke, a run and a guardrail evaluation, keeps undeclared env out, and swaps on save', async () => {
    const root = makeTempDir('python-pack');
    const packDir = join(root, 'pack');
    const tool = writePythonPack(packDir);
    const dataDir = join(root, 'data');
    // As root the server runs pack services as `nobody`, who cannot reach this interpreter (the CI venv
    // links to a Python under /root): the service stays root here; the env filter is what is tested.
    const packUser = process.getuid?.() === 0 ? { packUser: 'root' } : {};
    const configPath = writeConfig(root, dataDir, { packs: [{ dir: packDir, watch: true, python }], ...packUser });
    const server = await startServer(configPath, { env: { PY_SERVER_ONLY: 'server-value' } });
    const { token } = readCredentials(dataDir);
    await server.waitFor((record) => record.event === 'pack-child-serving', 'pack-child-serving');

    const invoked = await api(server.url, token, 'POST', '/v1/tools/acme.greet/invoke', { input: { name: 'Ada' } });
    expect(invoked).toMatchObject({ status: 200, body: { output: { text: 'Hello, Ada' } } });

    const started = await api(server.url, token, 'POST', '/v1/runs', {
      toolId: 'acme.greet',
      input: { name: 'Grace' },
      options: { wait: true },
    });
    expect(started).toMatchObject({ status: 201, body: { status: 'completed' } });
    const run = await api(server.url, token, 'GET', `/v1/runs/${(started.body as { runId: string }).runId}`);
    expect(run).toMatchObject({ status: 200, body: { output: { text: 'Hello, Grace' } } });

    const trace = { runId: 'eval-1', tenantId: 'tenant-1', output: 'ok', mode: 'runtime' };
    const failing = await api(server.url, token, 'POST', '/v1/guardrails/acme.min-chars/evaluate', { trace });
    expect(failing).toMatchObject({ status: 200, body: { result: { passed: false, reason: 'needs 3 characters' } } });
    const passing = await api(server.url, token, 'POST', '/v1/guardrails/acme.min-chars/evaluate', {
      trace: { ...trace, output: 'long enough' },
    });
    expect(passing).toMatchObject({ status: 200, body: { result: { passed: true } } });

    const seen = await api(server.url, token, 'POST', '/v1/tools/acme.env-seen/invoke', { input: {} });
    expect(seen.status).toBe(200);
    const { environ, block } = (seen.body as { output: { environ: string[]; block: string[] } }).output;
    for (const names of [environ, block]) {
      expect(names).toContain('ACME_DECLARED');
      expect(names).not.toContain('ACME_UNDECLARED');
      expect(names).not.toContain('PY_SERVER_ONLY');
      expect(names).not.toContain('KINDGI_PACK_SERVICE_TOKEN');
    }

    writeFileSync(tool, greet('Hi'));
    await server.waitFor((record) => record.event === 'pack-reloaded', 'pack-reloaded');
    const after = await api(server.url, token, 'POST', '/v1/tools/acme.greet/invoke', { input: { name: 'Ada' } });
    expect(after).toMatchObject({ status: 200, body: { output: { text: 'Hi, Ada' } } });
  }, 120_000);
});
