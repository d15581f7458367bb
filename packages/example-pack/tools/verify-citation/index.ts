import { createHmac } from 'node:crypto';
import { defineTool } from '@kindgi/sdk';
import { z } from 'zod';

export default defineTool({
  id: 'acme.verify-citation',
  description:
    "Signs a citation with the tenant's citator key (the secret CITATOR_KEY), as a citator service would vouch for it.",
  // A secret the tenant sets (PUT /v1/secrets/CITATOR_KEY): resolved on every call, checked against this
  // schema (indexed as {type: 'string', minLength: 20}). ctx.secrets.CITATOR_KEY is a string.
  needsSpec: { secrets: { CITATOR_KEY: z.string().min(20) } },
  input: z.strictObject({ citation: z.string().min(1) }),
  output: z.strictObject({ citation: z.string(), signature: z.string() }),
  handler: async (input, ctx) => {
    const signature = createHmac('sha256', ctx.secrets.CITATOR_KEY).update(input.citation).digest('hex').slice(0, 16);
    return { citation: input.citation, signature };
  },
});
