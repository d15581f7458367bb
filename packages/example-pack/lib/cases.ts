/** A support case as the acme case store keeps it. */
export interface SupportCase {
  id: string;
  title: string;
  status: 'open' | 'pending' | 'closed';
  sources: { title: string; page?: number }[];
  history: string[];
}

// The demo's case store: fixed data, so examples and tests give the same answers everywhere.
const CASES: readonly SupportCase[] = [
  {
    id: 'CASE-1001',
    title: 'Refund requested for a duplicate charge',
    status: 'open',
    sources: [{ title: 'Refund policy', page: 3 }, { title: 'Billing FAQ' }],
    history: ['opened by customer', 'assigned to billing'],
  },
  {
    id: 'CASE-1002',
    title: 'Cannot reset password',
    status: 'pending',
    sources: [{ title: 'Account recovery guide', page: 1 }],
    history: ['opened by customer'],
  },
  {
    id: 'CASE-1003',
    title: 'Shipment arrived damaged',
    status: 'closed',
    sources: [{ title: 'Shipping damage policy', page: 7 }],
    history: ['opened by customer', 'replacement sent', 'closed'],
  },
];

/** The case with this id, or `undefined`. */
export function findCase(id: string): SupportCase | undefined {
  return CASES.find((c) => c.id === id);
}
