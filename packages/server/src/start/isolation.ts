import { err, type Result } from '@kindgi/protocol';
import type { LoadedServerConfig } from '../config/config.js';
import { closeDataDir } from '../isolation/directories.js';
import { type PackIsolation, planPackIsolation } from '../isolation/plan.js';
import { environmentSecrets } from '../isolation/secrets.js';
import type { ServerLogger } from '../telemetry/logger.js';

/**
 * Decides who the local packs run as (docs/security.md), closes the data directory to that user, and says
 * what pack code can still read of the server's secrets.
 */
export function isolatePacks(
  loaded: LoadedServerConfig,
  command: readonly string[],
  logger: ServerLogger,
): Result<PackIsolation, string[]> {
  const { config } = loaded;
  const planned = planPackIsolation({
    packUser: config.packUser,
    serverUid: process.getuid?.(),
    configPath: loaded.path,
    fileSecrets: loaded.fileSecrets,
    environmentSecrets: environmentSecrets(process.env),
    dataDir: config.dataDir,
    development: loaded.development,
    packDirs: config.packs.flatMap((pack) => ('dir' in pack ? [pack.dir] : [])),
    command,
  });
  if (planned.kind === 'err') return planned;
  const { user, exposures } = planned.value;
  const hasLocalPacks = config.packs.some((pack) => 'dir' in pack);
  if (user) {
    const closed = closeDataDir(config.dataDir, user);
    if (closed.kind === 'err') return err([closed.error]);
    if (closed.value) {
      logger.log('info', 'data-dir-restricted', `${config.dataDir}: mode 0700, so pack code cannot enter it`, {});
    }
    logger.log('info', 'pack-isolation', `pack services run as ${user.name} (uid ${user.uid}, gid ${user.gid})`, {
      user: user.name,
      uid: user.uid,
      gid: user.gid,
    });
  } else if (hasLocalPacks) {
    const fellBack = planned.value.fellBack;
    const why = fellBack ? ` (a development deployment, because ${fellBack.join('; ')})` : '';
    logger.log(
      'warn',
      'pack-isolation',
      `pack services run as the server's own user${why} and can read: ${exposures.join('; ')} (docs/security.md: run the server as root with packUser, or serve packs as remote pack images)`,
      { exposures, ...(fellBack ? { fellBack } : {}) },
    );
  }
  return planned;
}
