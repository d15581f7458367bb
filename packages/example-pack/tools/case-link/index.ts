import { defineTool } from '@kindgi/sdk';
import { z } from 'zod';

export default defineTool({
  id: 'acme.case-link',
  description: 'Returns the link to a case in the acme support portal.',
  inputZod: z.object({ caseId: z.string().regex(/^CASE-\d{4,}$/) }),
  outputZod: z.object({ url: z.url() }),
  handler: async ({ caseId }, ctx) => {
    // Declared in kindgi.config.ts (env.required), so the pack service never runs this without it.
    const base = process.env.ACME_API_BASE;
    if (!base) throw new Error('ACME_API_BASE is not set');
    if (process.env.LOG_LEVEL === 'debug') ctx.log.debug('building case link', { caseId });
    return { url: new URL(`cases/${encodeURIComponent(caseId)}`, base.endsWith('/') ? base : `${base}/`).href };
  },
});
