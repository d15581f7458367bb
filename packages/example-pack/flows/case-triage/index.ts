import { defineFlow } from '@kindgi/sdk';

export default defineFlow({
  id: 'acme.case-triage',
  version: '1.4.0',
  nodes: [
    { id: 'lookup', kind: 'tool', tool: 'acme.lookup-case' },
    { id: 'answer', kind: 'agent', agent: 'acme.support-agent' },
    { id: 'report', kind: 'tool', tool: 'acme.slow-report' },
    { id: 'done', kind: 'end' },
  ],
  edges: [
    { from: 'lookup', to: 'answer' },
    { from: 'answer', to: 'report', when: 'status == "closed"' },
    { from: 'answer', to: 'done' },
    { from: 'report', to: 'done' },
  ],
});
