import { buildInput } from '../call/input.js';
import { apiRequest } from '../cli/api-client.js';
import { parseCommandArgs, usageError } from '../cli/args.js';
import type { CliCommand } from '../cli/command.js';
import { printFailure, printResult } from '../cli/output.js';
import { isHttpUrl, resolveTarget } from '../cli/target.js';

const USAGE = `Usage: kindgi call <toolId> [--input JSON | --arg key=value ...] [--server URL] [--pack-dir .] [--json]

Calls a tool and prints its output (pretty JSON). By default the call goes to the kindgi dev running for
the pack (its URL and token are in <pack-dir>/.kindgi/dev.json); --server sends it to another Kindgi
server instead, with the bearer token from KINDGI_TOKEN.

Options:
  --input JSON      the whole input, as JSON (at most 1 MiB)
  --arg key=value   one input property (repeatable); the value is JSON when it parses as JSON, else text
  --server URL      a Kindgi server's base URL (token: KINDGI_TOKEN)
  --pack-dir DIR    the pack's folder, for its kindgi dev (default .)
  --json            print the API's whole reply ({"output": ...}) as one JSON document
  -h, --help        this text
  --version         the CLI's version

Exit codes: 0 the tool answered, 1 the call failed (the API's error code and message on stderr) or no
kindgi dev is running, 2 bad arguments.
`;

const OPTIONS = {
  input: { type: 'string', short: 'i' },
  arg: { type: 'string', short: 'a', multiple: true },
  server: { type: 'string' },
} as const;
const SPEC = { name: 'call', usage: USAGE, options: OPTIONS, positionals: { min: 1, max: 1 } } as const;
const MAX_TOOL_ID_CHARS = 256;

/** `kindgi call`: docs/cli.md, "kindgi call". */
export const callCommand: CliCommand = {
  name: 'call',
  summary: 'call a tool on kindgi dev (or a server) and print its output',
  usage: USAGE,
  async run(argv, io) {
    const parsed = parseCommandArgs(argv, io, SPEC);
    if (parsed.kind === 'exit') return parsed.code;
    const { values, positionals, json, packDir } = parsed.args;
    const toolId = positionals[0] ?? '';
    if (toolId === '' || toolId.length > MAX_TOOL_ID_CHARS) {
      return usageError(io, SPEC, `a tool id is 1 to ${MAX_TOOL_ID_CHARS} characters`);
    }
    const input = buildInput(values.input, values.arg ?? []);
    if (input.kind === 'err') return usageError(io, SPEC, input.error);
    if (values.server !== undefined && !isHttpUrl(values.server)) {
      return usageError(io, SPEC, `--server must be an http(s) URL, not "${values.server}"`);
    }
    const mode = { command: 'call', json };
    const target = await resolveTarget({ packDir, server: values.server, env: io.env });
    if (target.kind === 'err') return printFailure(io, mode, target.error);
    const reply = await apiRequest(target.value, {
      method: 'POST',
      path: `/v1/tools/${encodeURIComponent(toolId)}/invoke`,
      body: { input: input.value },
    });
    if (reply.kind === 'err') return printFailure(io, mode, reply.error);
    const output = (reply.value.body as { output?: unknown } | null)?.output ?? null;
    return printResult(io, mode, reply.value.body, () => JSON.stringify(output, null, 2));
  },
};
