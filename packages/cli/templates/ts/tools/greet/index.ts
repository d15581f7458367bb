import { defineTool } from '@kindgi/sdk';
import { z } from 'zod';

// A sample tool: replace it with one that does what your agents need.
export default defineTool({
  id: '__PACK_ID__.greet',
  description: 'Greets someone by name and returns the greeting.',
  // Read-only: it changes nothing outside itself, so a dry run may call it.
  mutating: false,
  inputZod: z.object({
    name: z.string().min(1).max(200).describe('Who to greet'),
    greeting: z.string().min(1).max(50).default('Hello').describe('The word to greet with'),
  }),
  outputZod: z.object({ message: z.string() }),
  handler: async ({ name, greeting }, ctx) => {
    ctx.log.debug('greeting', { name });
    return { message: `${greeting}, ${name}!` };
  },
});
