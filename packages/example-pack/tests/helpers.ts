import { randomBytes } from 'node:crypto';
import { cp, mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ToolContext, ToolLogger } from '@kindgi/sdk';

/** The example pack's root. */
export const PACK_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The pack's source files (what the indexer discovers and the build bundles). */
export const PACK_FILES = [
  'kindgi.config.ts',
  'lib/cases.ts',
  'tools/lookup-case/index.ts',
  'tools/format-citation/index.ts',
  'tools/case-link/index.ts',
  'tools/slow-report/index.ts',
  'tools/verify-citation/index.ts',
  'guardrails/citations-checked/index.ts',
  'agents/support-agent/index.ts',
  'flows/case-triage/index.ts',
];

const copies: string[] = [];

/** A copy of the pack's sources inside the package (so `@kindgi/sdk` and `zod` resolve from it). */
export async function copyPack(): Promise<string> {
  const dir = join(PACK_ROOT, 'tests', '.packs', randomBytes(6).toString('hex'));
  copies.push(dir);
  for (const file of PACK_FILES) {
    await mkdir(dirname(join(dir, file)), { recursive: true });
    await cp(join(PACK_ROOT, file), join(dir, file));
  }
  return dir;
}

/** Removes the copies this test file made. */
export async function removeCopies(): Promise<void> {
  await Promise.all(copies.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/** A tool context for calling handlers directly; `lines` collects what the handler logs. */
export function toolContext(signal: AbortSignal = new AbortController().signal) {
  const lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  const log = Object.fromEntries(
    (['debug', 'info', 'warn', 'error'] as const).map((level) => [
      level,
      (message: string, fields?: Record<string, unknown>) => lines.push({ level, message, fields }),
    ]),
  ) as unknown as ToolLogger;
  const ctx: ToolContext = { tenantId: 't-1', runId: 'run-1', abortSignal: signal, secrets: {}, log };
  return { ctx, lines };
}
