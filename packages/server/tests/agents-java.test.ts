import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ScriptedModel, startScriptedModel } from '@kindgi/test-services/model-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentRun, MODEL_KEY, runUntil, settled, startAgentRun, TOKEN_A } from './agents-helpers.js';
import { call, scenarioScript } from './agents-pack.js';
import {
  cleanupTempDirs,
  makeTempDir,
  type RunningServer,
  startServer,
  stopAllServers,
  writeConfig,
} from './harness.js';
import { api } from './http.js';
import { installJavaSdk, writeJavaPack } from './java-fixtures.js';
import { copyExamplePack } from './pack-fixtures.js';

// Agents whose tool is a Java pack's (its service built with Maven, indexed and served by the Java SDK): the
// Java pack's own agent and a TypeScript pack's agent that names the Java tool by semver range both run a
// turn against the scripted model, and the tool's real output reaches the journal and the answer.

const GREET = `package jacme.tools;

import com.kindgi.pack.Tool;

public final class Greet {
  public record Input(String name) {}

  public record Output(String text) {}

  public static final Tool<Input, Output> TOOL = Tool.define("jacme.greet")
      .description("Greets someone by name.")
      .input(Input.class)
      .output(Output.class)
      .mutating(false)
      .handler((input, ctx) -> new Output("Hello from Java, " + input.name()));

  private Greet() {}
}
`;

const GREETER = `package jacme.agents;

import com.kindgi.pack.Agent;
import jacme.tools.Greet;

public final class Greeter {
  public static final Agent AGENT = Agent.define("jacme.greeter")
      .instructions("Greet whoever the user names with jacme.greet.")
      .tool(Greet.TOOL)
      .toolErrors("tool-error");

  private Greeter() {}
}
`;

const JAVA_CALLER = `import { defineAgent } from '@kindgi/sdk';

export default defineAgent({
  id: 'acme.java-caller',
  version: '1.0.0',
  instructions: 'Greet people with the Java pack.',
  tools: [{ id: 'jacme.greet', range: '^1.0.0' }],
});
`;

/** The Java pack `jacme` 1.0.0: the greet tool and its agent. */
function writeJacme(dir: string): void {
  writeJavaPack(dir, 'jacme-pack', { 'jacme/tools/Greet.java': GREET, 'jacme/agents/Greeter.java': GREETER });
  writeFileSync(
    join(dir, 'kindgi.config.json'),
    `${JSON.stringify({ language: 'java', pack: { id: 'jacme', version: '1.0.0' } })}\n`,
  );
}

// The model asks for the Java tool, then answers with what the tool returned.
const script = scenarioScript({
  greet: (step, request) => {
    if (step === 0) return { kind: 'tools', calls: [call('jacme.greet', { name: 'Ada' }, 'call_greet')] };
    const result = request.body.messages.find((message) => message.role === 'tool')?.content ?? '';
    return { kind: 'text', text: `Tool said: ${result}` };
  },
});

let model: ScriptedModel;
let server: RunningServer;

beforeAll(async () => {
  installJavaSdk();
  const root = makeTempDir('agents-java');
  const javaDir = join(root, 'jacme');
  writeJacme(javaDir);
  const tsDir = copyExamplePack(root);
  mkdirSync(join(tsDir, 'agents', 'java-caller'), { recursive: true });
  writeFileSync(join(tsDir, 'agents', 'java-caller', 'index.ts'), JAVA_CALLER);
  model = await startScriptedModel(script);
  const config = writeConfig(root, join(root, 'data'), {
    tokens: [{ token: TOKEN_A, tenantId: 'tenant-a' }],
    packs: [{ dir: tsDir, env: { ACME_API_BASE: 'https://cases.acme.invalid' } }, { dir: javaDir }],
    models: {
      default: {
        provider: 'openai-compatible',
        baseUrl: model.url,
        model: 'scripted-1',
        apiKeyEnv: 'AGENTS_MODEL_KEY',
        timeoutMs: 10_000,
      },
    },
    runs: { pollMs: 200, leaseMs: 5_000 },
    drainMs: 2_000,
  });
  server = await startServer(config, { env: { AGENTS_MODEL_KEY: MODEL_KEY } });
}, 600_000);

afterAll(async () => {
  await stopAllServers();
  await model?.close();
  cleanupTempDirs();
}, 60_000);

async function runAgent(agentId: string): Promise<{ run: AgentRun; stream: string }> {
  const started = await startAgentRun(server.url, agentId, 'greet Ada');
  expect(started.status).toBe(202);
  const run = await runUntil(server.url, started.body.runId, settled);
  const stream = (await api(server.url, TOKEN_A, 'GET', `/v1/runs/${run.runId}/stream`)).body as string;
  return { run, stream };
}

describe('agents calling a Java pack’s tool (dist/main.js)', () => {
  it('lists the Java pack’s agent beside the TypeScript ones', async () => {
    const agent = await api(server.url, TOKEN_A, 'GET', '/v1/agents/jacme.greeter');
    expect(agent.status).toBe(200);
    expect(agent.body).toMatchObject({ id: 'jacme.greeter', packId: 'jacme', toolErrors: ['tool-error'] });
  });

  it.each(['jacme.greeter', 'acme.java-caller'])(
    '%s runs a turn through the Java tool: its real output in the journal and the answer',
    async (agentId) => {
      const { run, stream } = await runAgent(agentId);
      expect(run).toMatchObject({ status: 'completed', violations: [] });
      expect(String(run.output?.answer)).toContain('Hello from Java, Ada');
      expect(stream).toContain('event: tool.call');
      expect(stream).toMatch(/event: tool\.result\ndata: .*jacme\.greet.*Hello from Java, Ada/);
      // The model saw the Java tool's JSON Schema under its provider-safe name.
      const request = model.requests.find((r) => r.body.tools?.some((tool) => tool.function.name === 'jacme_greet'));
      expect(
        request?.body.tools?.find((tool) => tool.function.name === 'jacme_greet')?.function.parameters,
      ).toMatchObject({ type: 'object', properties: { name: { type: 'string' } } });
    },
  );
});
