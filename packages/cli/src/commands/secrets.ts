import { join } from 'node:path';
import { isSecretName } from '@kindgi/protocol';
import { parseCommandArgs, usageError } from '../cli/args.js';
import type { CliCommand, CliIo } from '../cli/command.js';
import { type OutputMode, printFailure, printResult } from '../cli/output.js';
import { isHttpUrl, resolveTarget } from '../cli/target.js';
import { envFileNames, setEnvFileValue } from '../secrets/env-file.js';
import { readSecretValue } from '../secrets/read-value.js';
import { listServerSecrets, putServerSecret } from '../secrets/server-secrets.js';

const USAGE = `Usage: kindgi secrets set NAME [--env local|ENV] [--scope tenant] [--pack-dir .] [--server URL] [--json]
       kindgi secrets list [--env local|ENV] [--pack-dir .] [--server URL] [--json]

set: reads the value from a no-echo prompt (when stdin is a terminal: Enter ends it, Ctrl-C aborts) or
from stdin (a trailing newline is dropped; at most 16 KiB). A value given on the command line is refused:
it would stay in your shell history and show in the process list.
  --env local   (default) writes NAME to the pack's .env.local (created with mode 0600; other lines kept),
                where kindgi dev reads it
  --env ENV     sets it on a Kindgi server for ENV (PUT /v1/secrets/NAME); the server is --server URL with
                the token in KINDGI_TOKEN, else the running kindgi dev
list: names only, never values: local, the names in .env and .env.local; ENV, the server's secrets of ENV.

Options:
  --env ENV       local, or a server env (lowercase letters, digits and -)
  --scope tenant  whose secret it is (tenant is the only scope)
  --server URL    a Kindgi server's base URL (token: KINDGI_TOKEN)
  --pack-dir DIR  the pack's folder (default .)
  --json          one JSON document on stdout
  -h, --help      this text
  --version       the CLI's version

Exit codes: 0 done, 1 failed (aborted, empty value, server error), 2 bad arguments.
`;

const OPTIONS = { env: { type: 'string' }, scope: { type: 'string' }, server: { type: 'string' } } as const;
const SPEC = { name: 'secrets', usage: USAGE, options: OPTIONS, positionals: { min: 1, max: 3 } } as const;
const ENV_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;
const ARGV_VALUE_REFUSED =
  "a secret's value is never taken from the command line (it would stay in your shell history and show in the process list): type it at the prompt, or pipe it on stdin";

type Values = { env?: string; scope?: string; server?: string };

function checkCommon(io: CliIo, values: Values): number | undefined {
  if (values.scope !== undefined && values.scope !== 'tenant') {
    return usageError(io, SPEC, `--scope must be tenant (the only scope), not "${values.scope}"`);
  }
  if (values.env !== undefined && values.env !== 'local' && !ENV_NAME.test(values.env)) {
    return usageError(
      io,
      SPEC,
      `--env must be local or an env name (lowercase letters, digits and -), not "${values.env}"`,
    );
  }
  if (values.server !== undefined && !isHttpUrl(values.server)) {
    return usageError(io, SPEC, `--server must be an http(s) URL, not "${values.server}"`);
  }
  if (values.server !== undefined && (values.env ?? 'local') === 'local') {
    return usageError(io, SPEC, '--server sets a server env: give --env ENV (local secrets live in .env.local)');
  }
  return undefined;
}

async function setSecret(io: CliIo, mode: OutputMode, name: string, packDir: string, values: Values): Promise<number> {
  const env = values.env ?? 'local';
  if (env === 'local') {
    const value = await readSecretValue(io, name);
    if (value.kind === 'err') return printFailure(io, mode, value.error);
    const file = join(packDir, '.env.local');
    const written = await setEnvFileValue(file, name, value.value);
    if (written.kind === 'err') return printFailure(io, mode, written.error);
    return printResult(io, mode, { name, env, file }, `Set ${name} in ${file}`);
  }
  const target = await resolveTarget({ packDir, server: values.server, env: io.env });
  if (target.kind === 'err') return printFailure(io, mode, target.error);
  const value = await readSecretValue(io, name);
  if (value.kind === 'err') return printFailure(io, mode, value.error);
  const put = await putServerSecret(target.value, { name, env, value: value.value });
  if (put.kind === 'err') return printFailure(io, mode, put.error);
  return printResult(io, mode, put.value, `Set ${name} for env ${put.value.env} (version ${put.value.version})`);
}

async function listSecrets(io: CliIo, mode: OutputMode, packDir: string, values: Values): Promise<number> {
  const env = values.env ?? 'local';
  if (env === 'local') {
    const names = await envFileNames(packDir);
    if (names.kind === 'err') return printFailure(io, mode, names.error);
    return printResult(io, mode, { env, names: names.value }, names.value.join('\n'));
  }
  const target = await resolveTarget({ packDir, server: values.server, env: io.env });
  if (target.kind === 'err') return printFailure(io, mode, target.error);
  const listed = await listServerSecrets(target.value, env);
  if (listed.kind === 'err') return printFailure(io, mode, listed.error);
  const names = [...new Set(listed.value.map((secret) => secret.name))].sort();
  return printResult(io, mode, { env, names }, names.join('\n'));
}

/** `kindgi secrets`: docs/cli.md, "kindgi secrets". */
export const secretsCommand: CliCommand = {
  name: 'secrets',
  summary: "set a secret (no-echo prompt or stdin) or list secrets' names",
  usage: USAGE,
  async run(argv, io) {
    // Refused before parsing, so the message says why rather than "unknown option".
    if (argv.some((arg) => arg === '--value' || arg.startsWith('--value=')))
      return usageError(io, SPEC, ARGV_VALUE_REFUSED);
    const parsed = parseCommandArgs(argv, io, SPEC);
    if (parsed.kind === 'exit') return parsed.code;
    const { values, positionals, json, packDir } = parsed.args;
    const [action, name] = positionals;
    // A third word (`secrets set NAME VALUE`) is a value on the command line.
    if (action === 'set' && positionals.length > 2) return usageError(io, SPEC, ARGV_VALUE_REFUSED);
    const problem = checkCommon(io, values);
    if (problem !== undefined) return problem;
    const mode = { command: 'secrets', json };
    if (action === 'list') {
      if (positionals.length > 1) return usageError(io, SPEC, 'secrets list takes no NAME');
      return listSecrets(io, mode, packDir, values);
    }
    if (action !== 'set') return usageError(io, SPEC, `unknown action "${action}": use set or list`);
    if (name === undefined) return usageError(io, SPEC, 'secrets set needs a NAME');
    if (!isSecretName(name)) {
      return usageError(
        io,
        SPEC,
        `"${String(name).slice(0, 140)}" is not a secret name: capital letters, digits and _, not starting with a digit, at most 128 characters`,
      );
    }
    return setSecret(io, mode, name, packDir, values);
  },
};
