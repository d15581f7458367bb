import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import {
  cleanupTempDirs,
  makeTempDir,
  type RunningServer,
  startServer,
  stopAllServers,
  writeConfig,
} from './harness.js';

/**
 * One example-pack server for the enclosing `describe`, answering `token` for `tenantId`: started in
 * `beforeAll` and ready once its pack child serves; stopped, with its folders removed, in `afterAll`.
 * Returns the server (from `beforeAll` on).
 */
export function useServedServer(label: string, token: string, tenantId: string): () => RunningServer {
  let server: RunningServer | undefined;
  beforeAll(async () => {
    const dir = makeTempDir(label);
    server = await startServer(writeConfig(dir, join(dir, 'data'), { tokens: [{ token, tenantId }] }));
    await server.waitFor((record) => record.event === 'pack-child-serving', 'pack-child-serving');
  });
  afterAll(async () => {
    await stopAllServers();
    cleanupTempDirs();
  });
  return () => {
    if (server === undefined) throw new Error(`the ${label} server starts in beforeAll`);
    return server;
  };
}
