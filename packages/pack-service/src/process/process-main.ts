import { sharedValidators } from '@kindgi/call-runner';
import { tracingRequested } from '@kindgi/protocol';
import { createPackLog, type LogFormat, type PackLog } from '../log/log.js';
import { PACK_SERVICE_VERSION, readCommandLine, USAGE } from './cli.js';
import { METRICS_TOKEN_ENV_VAR, type PackServiceConfig, readPackServiceConfig } from './config.js';
import { readPackIndexFile } from './index-file.js';
import { isolatedEnv, reportDropped, runIsolated, TOKEN_ENV_VAR } from './isolate.js';
import { onStdinPipeClosed } from './parent-watch.js';
import { PACK_SERVICE_DRAIN_MS, startPackService } from './start.js';
import { containUncaught, ownCodeLocations, PACK_UNCAUGHT_EXIT_CODE } from './uncaught.js';

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
 * The process entry: reads the command line and settings, makes sure pack code runs in a process whose
 * environment block holds neither the token nor (filter on) an undeclared variable, boots, and serves
 * until SIGTERM (drain, then exit 0). Resolves with the exit code when it does not serve here: `--help`
 * and `--version` (0), a bad command line (2), a failed start (1), or the isolated child's exit code.
 * A service running in this process never resolves: it exits from its signal handler. It is the process
 * entry, not a library call: to isolate pack code it may start `process.argv[1]` again as a child.
 */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  const line = readCommandLine(argv);
  if (line.kind === 'help' || line.kind === 'version') {
    process.stdout.write(line.kind === 'help' ? USAGE : `${PACK_SERVICE_VERSION}\n`);
    return 0;
  }
  if (line.kind === 'usage-error') {
    process.stderr.write(`pack-service: ${line.message}\n\n${USAGE}`);
    return 2;
  }
  // Ajv's first compile also builds its own meta-schema validators (~60 ms): done here, before the token
  // read, a supervisor's spare child (`warmSpare`) has it behind it when it is released, not in a first call.
  sharedValidators.get({ type: 'object' }, 'input');
  sharedValidators.get({ type: 'object' }, 'output');
  const env = process.env;
  // The environment block as this process got it: what `/proc/self/environ` keeps showing.
  const block = { ...env };
  const read = readPackServiceConfig(argv, env);
  delete env[TOKEN_ENV_VAR];
  delete env[METRICS_TOKEN_ENV_VAR];
  if (read.kind === 'err') return fail(createPackLog({ format: formatFor('auto') }), 'config-invalid', read.error);
  const config = read.value;
  const log = createPackLog({
    level: config.log.level,
    levels: config.log.levels,
    format: formatFor(config.log.format),
  });

  // An unreadable index is reported by the boot below, before any pack code loads.
  const index = await readPackIndexFile(config.indexPath);
  if (index.kind === 'ok') {
    const isolated = isolatedEnv(index.value, block, config.envFilter);
    if (isolated.mustReExec) {
      reportDropped(log, isolated.dropped);
      return runIsolated(argv, isolated.env, config.token, log, config.metrics?.token);
    }
  }
  return serve(config, env, log);
}

async function serve(config: PackServiceConfig, env: NodeJS.ProcessEnv, log: PackLog): Promise<number> {
  let onFatal = (): void => process.exit(PACK_UNCAUGHT_EXIT_CODE);
  containUncaught(log, { ownCode: ownCodeLocations(), moduleRoot: config.moduleRoot }, () => onFatal());
  process.on('unhandledRejection', (reason) => {
    // Pack code that forgets a rejection must not take every other call down with it.
    log.record('unhandled-rejection', 'warn', `Pack code left a promise rejection unhandled: ${String(reason)}`, {});
  });

  // The OpenTelemetry SDK is loaded only when OTEL_* asks for traces (off by default).
  const tracing = tracingRequested(env);
  const shutdownTracing = tracing
    ? (await import('../tracing.js')).startProcessTracing('kindgi-pack-service')
    : async () => undefined;
  const started = await startPackService({ ...config, env, log, tracing });
  if (started.kind === 'err') return fail(log, 'boot-failed', started.error);
  const running = started.value;

  let draining = false;
  const drain = (why: string, exitCode: number) => {
    if (draining) return;
    draining = true;
    log.lifecycle('draining', 'info', `${why}: draining ${running.service.inFlight()} calls in flight`, {
      inFlight: running.service.inFlight(),
    });
    void running.stop(PACK_SERVICE_DRAIN_MS).then(async () => {
      await shutdownTracing();
      log.lifecycle('stopped', 'info', 'Stopped');
      // Handlers still running past the grace must not keep the process alive.
      process.exit(exitCode);
    });
  };
  onFatal = () => drain('The service state is unknown after an uncaught exception', PACK_UNCAUGHT_EXIT_CODE);
  process.once('SIGTERM', () => drain('SIGTERM', 0));
  onStdinPipeClosed(() => drain('The supervisor is gone (stdin closed)', 0));
  return new Promise<number>(() => {});
}
