import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalJson, compareCodeUnits } from '@kindgi/protocol';
import { expect, it } from 'vitest';
import { PINS, type SuiteContext } from '../context.js';
import { specProblems } from '../schemas.js';

/** The fixture's tool ids, sorted: every target's index lists exactly these. */
export const FIXTURE_TOOL_IDS = [
  'conformance.bad-output',
  'conformance.context',
  'conformance.defaults',
  'conformance.echo',
  'conformance.env-names',
  'conformance.hold',
  'conformance.noisy',
  'conformance.proc-environ',
  'conformance.process-env',
  'conformance.sleep',
  'conformance.throws',
];

/** The fixture's check ids, sorted. */
export const FIXTURE_CHECK_IDS = ['conformance.checks.min-length', 'conformance.checks.throws'];

/** The index the target builds: its schema, its canonical bytes, its pins, its contents. */
export function indexCases(context: SuiteContext): void {
  it('builds an index that matches specs/pack-index.schema.json', () => {
    const index = JSON.parse(readFileSync(context.indexPath, 'utf8'));
    expect(specProblems('index', index)).toEqual([]);
  });

  it('writes canonical bytes: sorted keys, two-space indent, trailing newline, lists sorted by id', () => {
    const text = readFileSync(context.indexPath, 'utf8');
    const index = JSON.parse(text);
    expect(text).toBe(canonicalJson(index));
    for (const list of ['tools', 'guardrails', 'agents', 'flows'] as const) {
      const ids = (index[list] as Array<{ id: string }>).map((entry) => entry.id);
      expect(ids).toEqual([...ids].sort(compareCodeUnits));
    }
  });

  it('takes the pins as given, and two builds are byte-identical', async () => {
    const again = join(context.dir, 'index-again.json');
    await context.target.buildIndex(again, PINS);
    const text = readFileSync(context.indexPath, 'utf8');
    expect(readFileSync(again, 'utf8')).toBe(text);
    const index = JSON.parse(text);
    expect(index).toMatchObject({ v: 1, packId: 'conformance', packVersion: '1.0.0', ...PINS });
  });

  it('lists the fixture pack: its tools, its checks and its declared env', () => {
    const index = JSON.parse(readFileSync(context.indexPath, 'utf8'));
    expect(index.tools.map((tool: { id: string }) => tool.id)).toEqual(FIXTURE_TOOL_IDS);
    const checks = index.guardrails.map((g: { id: string; checkId?: string }) => g.checkId ?? g.id).sort();
    expect(checks).toEqual(FIXTURE_CHECK_IDS);
    expect(index.env).toEqual({ optional: ['CONFORMANCE_OPTIONAL'], required: ['CONFORMANCE_REQUIRED'] });
  });
}
