import { defineAgent } from '@kindgi/sdk';
import citationsChecked from '../../guardrails/citations-checked/index.js';
import caseLink from '../../tools/case-link/index.js';
import formatCitation from '../../tools/format-citation/index.js';
import lookupCase from '../../tools/lookup-case/index.js';

export default defineAgent({
  id: 'acme.support-agent',
  version: '1.4.0',
  name: 'Acme support agent',
  instructions: [
    'You answer questions about acme support cases.',
    'Look the case up with acme.lookup-case before answering, and cite every source you rely on',
    'with acme.format-citation. Link the case with acme.case-link when the customer asks where to follow it.',
  ].join(' '),
  capabilities: ['chat', 'tools'],
  tools: [lookupCase, formatCitation, caseLink, { id: 'acme.slow-report', range: '^1.4.0' }],
  guardrails: [citationsChecked],
});
