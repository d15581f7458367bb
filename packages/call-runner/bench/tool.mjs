/** The benchmarked tool: as cheap as a handler can be, so the runner's own cost is what shows. */
export function handler(input) {
  return { ok: true, count: input.limit };
}
