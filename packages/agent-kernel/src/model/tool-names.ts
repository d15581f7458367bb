import { createHash } from 'node:crypto';

/** The names function-calling APIs accept (OpenAI's rule, which the compatible servers share). */
export const FUNCTION_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** Tool ids and the function names a provider sees for them, both ways. */
export interface ToolNameMap {
  nameOf(toolId: string): string;
  /** The tool id of a function name, or undefined for a name this map never gave. */
  toolIdOf(name: string): string | undefined;
}

function hashed(toolId: string, base: string, salt: number): string {
  const digest = createHash('sha256').update(`${salt}:${toolId}`).digest('hex').slice(0, 8);
  return `${base.slice(0, 55)}_${digest}`;
}

/**
 * Function names for tool ids: `acme.lookup-case` → `acme_lookup-case`. A name that would be too long, or
 * taken by another id (`acme.a_b` and `acme_a.b`), gets a hash of its id instead, so the map is one to one
 * and depends only on the set of ids.
 */
export function createToolNameMap(toolIds: readonly string[]): ToolNameMap {
  const byId = new Map<string, string>();
  const byName = new Map<string, string>();
  const ids = [...new Set(toolIds)].sort();
  const base = (id: string) => id.replace(/[^a-zA-Z0-9_-]/g, '_');
  const plain = new Map<string, number>();
  for (const id of ids) plain.set(base(id), (plain.get(base(id)) ?? 0) + 1);
  const keepsPlain = (id: string) => base(id).length > 0 && base(id).length <= 64 && plain.get(base(id)) === 1;
  // Plain names first, so a hashed name can be checked against every one of them.
  for (const id of ids.filter(keepsPlain)) {
    byId.set(id, base(id));
    byName.set(base(id), id);
  }
  for (const id of ids.filter((id) => !keepsPlain(id))) {
    let name = hashed(id, base(id), 0);
    for (let salt = 1; byName.has(name); salt += 1) name = hashed(id, base(id), salt);
    byId.set(id, name);
    byName.set(name, id);
  }
  return {
    nameOf: (toolId) => byId.get(toolId) ?? toolId,
    toolIdOf: (name) => byName.get(name),
  };
}
