import { relative } from 'node:path';
import { findKindgiConfig } from '@kindgi/indexer';
import { startServer } from '@kindgi/server';
import { type CliIo, EXIT } from '../cli/command.js';
import { DEFAULT_DEV_PORT, devPaths, devServerConfig, generateDevToken } from './dev-config.js';
import { portOrFree, removeDevFile, writeDevFile } from './dev-file.js';
import { locateProblems } from './problems.js';
import { createDevReporter, type DevReporter } from './reporter.js';

export interface DevOptions {
  packDir: string;
  /** `--port`; absent: 8787, or any free port when 8787 is taken. */
  port?: number;
  json: boolean;
}

/** Resolves on the first SIGINT or SIGTERM; `dispose` removes the handlers. */
function stopSignal(): { stopped: Promise<string>; dispose: () => void } {
  let onSignal: (signal: string) => void = () => undefined;
  const stopped = new Promise<string>((resolve) => {
    onSignal = resolve;
  });
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return {
    stopped,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

function banner(url: string, token: string, packId: string, devFile: string, packDir: string): string {
  return [
    `kindgi dev: pack ${packId} serves on ${url}`,
    `  token:  ${token}   (printed once; also in ${relative(packDir, devFile)})`,
    `  docs:   ${url}/docs`,
    `  mcp:    ${url}/mcp   (any MCP client, same token; docs/mcp.md)`,
    `  call:   curl -H 'authorization: Bearer <token>' -H 'content-type: application/json' \\`,
    `            -d '{"input": {}}' ${url}/v1/tools/<toolId>/invoke`,
    '',
  ].join('\n');
}

function failStart(io: CliIo, reporter: DevReporter, packDir: string, problems: readonly string[]): number {
  const located = locateProblems(packDir, problems);
  reporter.emit(
    { event: 'failed', problems: located },
    `kindgi dev: the pack could not be served:${located.map((line) => `\n  ${line}`).join('')}`,
  );
  if (!located.length) io.stderr('kindgi dev: the pack could not be served\n');
  return EXIT.failed;
}

/**
 * `kindgi dev`: a Kindgi server in this process serving one watched pack, until SIGINT or SIGTERM; then
 * everything stops (the pack service included), `.kindgi/dev.json` is removed, and the exit code is 0.
 */
export async function runDev(io: CliIo, options: DevOptions): Promise<number> {
  const { packDir, json } = options;
  const reporter = createDevReporter(io, packDir, json);
  // kindgi.config.*, or a Python pack's pyproject.toml with a [tool.kindgi] table.
  if ((await findKindgiConfig(packDir)) === undefined) {
    return failStart(io, reporter, packDir, [
      `${packDir}: no kindgi.config.* here (run kindgi init, or pass --pack-dir)`,
    ]);
  }
  const signal = stopSignal();
  try {
    const port = options.port ?? (await portOrFree(DEFAULT_DEV_PORT));
    const token = generateDevToken();
    const loaded = devServerConfig({ packDir, port, token });
    if (loaded.kind === 'err') return failStart(io, reporter, packDir, loaded.error);
    const started = await startServer(loaded.value, { logger: reporter.logger });
    if (started.kind === 'err') return failStart(io, reporter, packDir, started.error);
    const running = started.value;
    const { devFile } = devPaths(packDir);
    writeDevFile(devFile, { url: running.url, token, pid: process.pid });
    const packId = running.packs[0] ?? '';
    reporter.emit(
      {
        event: 'serving',
        url: running.url,
        token,
        packId,
        docs: `${running.url}/docs`,
        mcp: `${running.url}/mcp`,
        devFile,
      },
      `serving ${packId}`,
    );
    if (!json) io.stdout(banner(running.url, token, packId, devFile, packDir));
    const received = await signal.stopped;
    reporter.emit({ event: 'stopping', signal: received }, `stopping (${received})`);
    try {
      await running.close();
    } finally {
      removeDevFile(devFile);
    }
    reporter.emit({ event: 'stopped' }, 'stopped');
    return EXIT.ok;
  } finally {
    signal.dispose();
  }
}
