import { parseCommandArgs, usageError } from '../cli/args.js';
import type { CliCommand } from '../cli/command.js';

const USAGE = `Usage: kindgi dev [--pack-dir .] [--port N] [--json]

Serves one pack locally through the real Kindgi API (REST and the docs page) and reloads it on every save.
A fresh development token is printed once; the URL, token and pid are in <pack-dir>/.kindgi/dev.json
(mode 0600) while it runs. The pack service's environment is the pack's .env and .env.local (the latter
wins) plus PATH, HOME and TMPDIR; editing either file restarts it. Declared secrets are read from the
same files (env "local"). Ctrl-C stops everything and removes .kindgi/dev.json.

Options:
  --pack-dir DIR  the pack's folder (default .)
  --port N        the API's port on 127.0.0.1 (default 8787, or any free port when 8787 is taken; 0: any)
  --json          one JSON object per event on stdout (serving, reindexed, reindex-failed, ...)
  -h, --help      this text
  --version       the CLI's version
`;

const OPTIONS = { port: { type: 'string' } } as const;

/** `kindgi dev`: docs/cli.md, "kindgi dev". */
export const devCommand: CliCommand = {
  name: 'dev',
  summary: 'serve a pack locally through the API, reloading it on every save',
  usage: USAGE,
  async run(argv, io) {
    const parsed = parseCommandArgs(argv, io, { name: 'dev', usage: USAGE, options: OPTIONS });
    if (parsed.kind === 'exit') return parsed.code;
    const { values, packDir, json } = parsed.args;
    let port: number | undefined;
    if (values.port !== undefined) {
      if (!/^\d{1,5}$/.test(values.port) || Number(values.port) > 65_535) {
        return usageError(
          io,
          { name: 'dev', usage: USAGE },
          `--port must be a port number (0-65535), not "${values.port}"`,
        );
      }
      port = Number(values.port);
    }
    // The server and everything below it load only when `dev` runs: every other command starts faster.
    const { runDev } = await import('../dev/run-dev.js');
    return runDev(io, { packDir, json, ...(port === undefined ? {} : { port }) });
  },
};
