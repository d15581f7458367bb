import { afterAll, beforeAll, describe } from 'vitest';
import { checkCases } from './cases/check-cases.js';
import { envCases } from './cases/env-cases.js';
import { indexCases } from './cases/index-cases.js';
import { processCases } from './cases/process-cases.js';
import { routeCases } from './cases/route-cases.js';
import { toolCases } from './cases/tool-cases.js';
import { createSuiteContext } from './context.js';
import type { ConformanceTarget } from './types.js';

/**
 * Registers the black-box conformance suite for one pack service implementation: it builds the
 * fixture's index with `buildIndex`, starts `command` with `PORT=0`, and checks every route, status,
 * header, message, log record and process behaviour against specs/ (see FIXTURE.md for the pack).
 */
export function describePackServiceConformance(target: ConformanceTarget): void {
  describe(`pack service conformance: ${target.name}`, () => {
    const context = createSuiteContext(target);
    beforeAll(() => context.setUp(), 120_000);
    afterAll(() => context.tearDown(), 60_000);

    describe('index', () => indexCases(context));
    describe('process contract', () => processCases(context));
    describe('routes and statuses', () => routeCases(context));
    describe('tools', () => toolCases(context));
    describe('checks', () => checkCases(context));
    const envSupported = !target.unsupported?.includes('pack-env');
    describe.skipIf(!envSupported)('declared env and env filter', () => envCases(context));
  });
}
