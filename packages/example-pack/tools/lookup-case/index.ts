import { defineTool } from '@kindgi/sdk';
import { z } from 'zod';
import { findCase } from '../../lib/cases.js';

const input = z.object({
  caseId: z
    .string()
    .regex(/^CASE-\d{4,}$/)
    .describe('The case id, such as CASE-1001'),
  includeHistory: z.boolean().default(false).describe('Also return the case history'),
});

const output = z.object({
  id: z.string(),
  title: z.string(),
  status: z.enum(['open', 'pending', 'closed']),
  sources: z.array(z.object({ title: z.string(), page: z.number().int().min(1).optional() })),
  history: z.array(z.string()).optional(),
});

export default defineTool({
  id: 'acme.lookup-case',
  description: 'Looks up a support case by id and returns its title, status and the sources to cite.',
  mutating: false,
  effects: [{ kind: 'reads', resource: 'db:cases' }],
  inputZod: input,
  outputZod: output,
  handler: async ({ caseId, includeHistory }) => {
    const found = findCase(caseId);
    if (!found) throw new Error(`No case ${caseId}`);
    const { history, ...rest } = found;
    return includeHistory ? { ...rest, history } : rest;
  },
});
