import { defineTool } from '@kindgi/sdk';

// A type alias (not an interface) so it fits the SDK's JSON object type.
type CitationInput = {
  source: string;
  page?: number;
  style: 'short' | 'long';
};

export default defineTool({
  id: 'acme.format-citation',
  description: 'Formats a source as a citation the guardrail acme.citations-checked recognises: [Title, p. N].',
  input: {
    type: 'object',
    required: ['source'],
    properties: {
      source: { type: 'string', minLength: 1, description: 'The title of the source' },
      page: { type: 'integer', minimum: 1 },
      style: { type: 'string', enum: ['short', 'long'], default: 'short' },
    },
    additionalProperties: false,
  },
  output: {
    type: 'object',
    required: ['citation'],
    properties: { citation: { type: 'string' } },
    additionalProperties: false,
  },
  handler: async (input: CitationInput) => {
    const page = input.page === undefined ? '' : input.style === 'long' ? `, page ${input.page}` : `, p. ${input.page}`;
    return { citation: `[${input.source}${page}]` };
  },
});
