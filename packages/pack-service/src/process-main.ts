import { type PackServiceConfig, readPackServiceConfig } from './config.js';
import { createPackLog, type LogFormat, type PackLog } from './log.js';
import { onStdinPipeClosed } from './parent-watch.js';
import { PACK_SERVICE_DRAIN_MS, startPackService } from './start.js';

function formatFor(setting: PackServiceConfig['log']['format']): LogFormat {
  if (setting !== 'auto') return setting;
  return process.stderr.isTTY ? 'pretty' : 'json';
}

function fail(log: PackLog, event: 'boot-failed' | 'config-invalid', problems: string[]): number {
  const what = event === 'boot-failed' ? 'The pack service failed to boot' : 'The pack service settings are invalid';
  log.lifecycle(event, 'error', `${what}: ${problems.join('; ')}`, { problems });
  return 1;
}

/**
 * The process entry: reads the settings, removes the token from the environment before any pack code
 * loads, boots, and serves until SIGTERM (drain, then exit 0). Resolves with the exit code of a failed
 * start (1); a running service never resolves — it exits from its signal handler.
 */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  const env = process.env;
  const read = readPackServiceConfig(argv, env);
  // Pack code must never see the token, whatever happens next.
  delete env.KINDGI_PACK_SERVICE_TOKEN;
  if (read.kind === 'err') {
    return fail(createPackLog({ format: formatFor('auto') }), 'config-invalid', read.error);
  }
  const config = read.value;
  const log = createPackLog({
    level: config.log.level,
    levels: config.log.levels,
    format: formatFor(config.log.format),
  });
  process.on('unhandledRejection', (reason) => {
    // Pack code that forgets a rejection must not take every other call down with it.
    log.record('unhandled-rejection', 'warn', `Pack code left a promise rejection unhandled: ${String(reason)}`, {});
  });

  const started = await startPackService({ ...config, env, log });
  if (started.kind === 'err') return fail(log, 'boot-failed', started.error);
  const running = started.value;

  let draining = false;
  const drain = (why: string) => {
    if (draining) return;
    draining = true;
    log.lifecycle('draining', 'info', `${why}: draining ${running.service.inFlight()} calls in flight`, {
      inFlight: running.service.inFlight(),
    });
    void running.stop(PACK_SERVICE_DRAIN_MS).then(() => {
      log.lifecycle('stopped', 'info', 'Stopped');
      // Handlers still running past the grace must not keep the process alive.
      process.exit(0);
    });
  };
  process.once('SIGTERM', () => drain('SIGTERM'));
  onStdinPipeClosed(() => drain('The supervisor is gone (stdin closed)'));
  return new Promise<number>(() => {});
}
