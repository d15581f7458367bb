import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunnableTool } from '../src/index.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

/** Absolute path of a fixture module (a plain join: names may hold `#`, which a URL would cut off). */
export function fixture(name: string): string {
  return join(fixtures, name);
}

/** A tool over `modulePath` that accepts and returns anything JSON can carry. */
export function openTool(modulePath: string, id = 'fixtures.tool'): RunnableTool {
  return { id, modulePath, inputSchema: { type: 'object' }, outputSchema: true };
}

export const CTX = { tenantId: 't-1', runId: 'r-1' };
